/**
 * Common-format chat request → Gemini `GenerateContentRequest`.
 * @see Gemini API reference: Generating content › Request body; Gemini API docs: Structured output, Thinking
 */
import { badRequest, type ChatRequest } from 'gw/plugin';
import { quoted } from 'gw/plugin/format';
import { stopSequences } from '../../lib/common/stop-sequences.ts';
import { convertMessages } from './convert-messages.ts';
import { convertToolChoice, convertTools, withoutSchemaKeyword } from './map-tools.ts';
import type { GenerateContentRequest, GenerationConfig, ThinkingConfig } from './types.ts';

/**
 * `reasoning_effort` → `thinkingBudget`, the budgets Google's own OpenAI-compatible
 * endpoint uses (low 1K, medium 8K, high 24K, none = thinking off). `minimal` takes low's
 * budget, 1024 being valid on every 2.5 model (Pro's floor is 128, Flash-Lite's 512);
 * `xhigh` takes high's, 24576 being Flash's ceiling.
 * @see Gemini API docs: OpenAI compatibility › Thinking
 */
export const THINKING_BUDGETS: Readonly<Record<string, number>> = {
  none: 0,
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 24576,
};

/** Consumed by the provider itself (URL, stream mode), never translated or warned about. */
const TRANSPORT_FIELDS = new Set(['model', 'messages', 'stream', 'stream_options']);

/** Fields this translation maps; everything else is dropped with a warning. */
const MAPPED_FIELDS = new Set([
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'top_k',
  'n',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'reasoning_effort',
]);

/**
 * Translates a chat request (`model` goes in the URL, not the body); `warnings` lists what was dropped.
 * @throws GatewayError 400 naming the field for what cannot be translated without changing the conversation.
 * @see Gemini API reference: models.generateContent
 */
export function toGeminiRequest(req: ChatRequest): { body: GenerateContentRequest; warnings: string[] } {
  const warnings: string[] = [];
  if (!Array.isArray(req.messages)) throw badRequest('messages must be an array', 'messages');
  const { systemInstruction, contents } = convertMessages(req.messages, warnings);
  const body: GenerateContentRequest = { contents };
  if (systemInstruction !== undefined) body.systemInstruction = systemInstruction;

  const tools = convertTools(req.tools, warnings);
  if (tools !== undefined) {
    body.tools = tools;
    const toolConfig = convertToolChoice(req.tool_choice);
    if (toolConfig !== undefined) body.toolConfig = toolConfig;
  } else if (req.tool_choice != null) {
    warnings.push('tool_choice dropped: no tools were given');
  }
  if (req.parallel_tool_calls === false) warnings.push('parallel_tool_calls=false dropped: Gemini has no switch for parallel calls');

  const generationConfig = toGenerationConfig(req);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;

  for (const [key, value] of Object.entries(req)) {
    if (value === null || value === undefined || TRANSPORT_FIELDS.has(key) || MAPPED_FIELDS.has(key)) continue;
    warnings.push(`${key} dropped: no Gemini equivalent`);
  }
  return { body, warnings };
}

function toGenerationConfig(req: ChatRequest): GenerationConfig {
  const config: GenerationConfig = {};
  const num = (key: string): number | undefined => {
    const v = req[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw badRequest(`${key} must be a number`, key);
    return v;
  };
  const set = <K extends keyof GenerationConfig>(key: K, value: GenerationConfig[K] | undefined): void => {
    if (value !== undefined) config[key] = value;
  };
  set('temperature', num('temperature'));
  set('topP', num('top_p'));
  // not OpenAI's, but vLLM-style clients send it and Gemini has it
  set('topK', num('top_k'));
  set('maxOutputTokens', num('max_completion_tokens') ?? num('max_tokens'));
  set('candidateCount', num('n'));
  set('seed', num('seed'));
  set('presencePenalty', num('presence_penalty'));
  set('frequencyPenalty', num('frequency_penalty'));
  set('stopSequences', stopSequences(req.stop));
  Object.assign(config, responseFormat(req.response_format));
  set('thinkingConfig', thinkingConfig(req.reasoning_effort));
  return config;
}

/** json_object → JSON mime type; json_schema → JSON mime type + `responseJsonSchema`. */
function responseFormat(format: ChatRequest['response_format'] | null): GenerationConfig {
  if (format === undefined || format === null) return {};
  switch (format.type) {
    case 'text':
      return {};
    case 'json_object':
      return { responseMimeType: 'application/json' };
    case 'json_schema': {
      const schema = format.json_schema?.schema;
      if (schema === undefined || schema === null) return { responseMimeType: 'application/json' };
      if (typeof schema !== 'object' || Array.isArray(schema))
        throw badRequest('response_format.json_schema.schema must be a JSON Schema object', 'response_format.json_schema.schema');
      return { responseMimeType: 'application/json', responseJsonSchema: withoutSchemaKeyword(schema) };
    }
    default:
      throw badRequest('response_format.type is not supported', 'response_format.type', quoted(format.type));
  }
}

function thinkingConfig(effort: ChatRequest['reasoning_effort']): ThinkingConfig | undefined {
  if (effort === undefined || effort === null) return undefined;
  const budget = typeof effort === 'string' && Object.hasOwn(THINKING_BUDGETS, effort) ? THINKING_BUDGETS[effort] : undefined;
  if (budget === undefined) {
    throw badRequest(`reasoning_effort must be one of ${Object.keys(THINKING_BUDGETS).join(', ')}`, 'reasoning_effort');
  }
  // includeThoughts makes Gemini return thought summaries, which become reasoning_content
  return budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true };
}
