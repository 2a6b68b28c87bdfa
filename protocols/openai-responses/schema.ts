/**
 * The zod schema of a POST /v1/responses body: validates on the hot path (before any
 * translation) and feeds /openapi.json. Open objects: a native passthrough forwards the body
 * unchanged, so nothing here strips; the translator checks item and part shapes in detail.
 *
 * @see OpenAI API reference: Create a model response; OpenAI's OpenAPI document (openapi.json: CreateResponse)
 */
import { z } from 'zod';
import { capped, MAX_TOOLS, MAX_TURNS } from 'gw/plugin/format';
import { cappedTotal, lengthOr1 } from '../../lib/common/limits.ts';

const item = z.looseObject({ type: z.string().optional() }).meta({ description: 'An input item: message, function_call, function_call_output, reasoning, …' });
const tool = z
  .looseObject({ type: z.string(), tools: capped(z.unknown(), MAX_TOOLS, 'tools in a namespace').optional() })
  .meta({ description: 'function, namespace (with its own tools), or a built-in tool (web_search, file_search, mcp, …)' });

export const responsesRequestSchema = z
  .looseObject({
    model: z.string().min(1).meta({ description: 'Model id or alias' }),
    input: z.union([z.string(), capped(item, MAX_TURNS, 'input items')]).optional(),
    instructions: z.string().nullish(),
    tools: cappedTotal(tool, MAX_TOOLS, 'tools', 'tools', "a namespace's tools counted one by one", (t) =>
      lengthOr1((t as { tools?: unknown } | null)?.tools),
    ).optional(),
    tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })]).optional(),
    parallel_tool_calls: z.boolean().nullish(),
    max_output_tokens: z.number().int().positive().nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    text: z.looseObject({ format: z.looseObject({ type: z.string() }).optional() }).nullish(),
    reasoning: z.looseObject({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
    stream: z.boolean().nullish(),
    store: z.boolean().nullish(),
    previous_response_id: z.string().min(1).nullish(),
    metadata: z.record(z.string(), z.string()).nullish(),
    user: z.string().optional(),
    include: z.array(z.string()).nullish(),
  })
  .meta({ id: 'ResponsesRequest', description: 'OpenAI Responses request; forwarded unchanged to Responses-format upstreams, translated for the others' });
