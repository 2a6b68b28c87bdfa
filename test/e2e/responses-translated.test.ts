/**
 * POST /v1/responses on translated kinds (anthropic, gemini): the official openai SDK's
 * `responses.create` and `responses.stream` with a function tool, then the
 * `function_call_output` round trip, against mock upstreams replaying recorded Messages
 * and Gemini payloads; what each upstream received for the second turn.
 */
import test from 'ava';
import type OpenAI from 'openai';
import { fixture, replyJson, replySse, type Received } from '../helpers/upstream.ts';
import { rig } from './responses-helpers.ts';

type Kind = 'anthropic' | 'gemini';

interface Case {
  model: string;
  /** The tool the recorded first answer calls. */
  tool: { name: string; parameters: Record<string, unknown> };
  /** The recorded first (tool call) and second (text) answers. */
  first(stream: boolean): { json?: string; sse?: string };
  second(stream: boolean): { json?: string; sse?: string };
  /** The recorded call's arguments, when the test checks them. */
  args?: unknown;
  /** Checks the upstream request of the second turn: the call and its output went back. */
  checkSecond(t: import('ava').ExecutionContext, r: Received, callId: string): void;
}

const CASES: Record<Kind, Case> = {
  anthropic: {
    model: 'claude-sonnet-4-5',
    tool: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
    first: (stream) =>
      stream ? { sse: fixture('anthropic/anthropic-sdk-typescript/tool_use.sse') } : { json: fixture('anthropic/vercel-ai/anthropic-json-tool.1.json') },
    second: (stream) => (stream ? { sse: fixture('anthropic/vercel-ai/anthropic-text.sse') } : { json: fixture('anthropic/vercel-ai/anthropic-text.json') }),
    checkSecond(t, r, callId) {
      t.is(r.url, '/v1/messages');
      const msgs = r.json.messages as Array<{ role: string; content: any }>;
      t.is(msgs[0]!.role, 'user');
      const assistant = msgs[1]!;
      t.is(assistant.role, 'assistant');
      t.true(assistant.content.some((b: any) => b.type === 'tool_use' && b.id === callId));
      const result = msgs[2]!.content.find((b: any) => b.type === 'tool_result');
      t.like(result, { tool_use_id: callId });
      t.regex(JSON.stringify(result.content), /18C/);
    },
  },
  gemini: {
    model: 'gemini-3-pro-preview',
    tool: { name: 'weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
    first: (stream) => (stream ? { sse: fixture('gemini/vercel-ai/google-tool-call.sse') } : { json: fixture('gemini/vercel-ai/google-tool-call.json') }),
    second: (stream) => (stream ? { sse: fixture('gemini/vercel-ai/google-text.sse') } : { json: fixture('gemini/vercel-ai/google-text.json') }),
    args: { location: 'San Francisco' },
    checkSecond(t, r) {
      t.regex(r.url, /:(stream)?[gG]enerateContent/);
      const contents = r.json.contents as Array<{ role: string; parts: any[] }>;
      const call = contents.find((c) => c.role === 'model')!.parts.find((p) => p.functionCall);
      t.like(call.functionCall, { name: 'weather', args: { location: 'San Francisco' } });
      t.truthy(call.thoughtSignature, 'the signature rode in the call_id and went back');
      const response = contents.at(-1)!.parts.find((p) => p.functionResponse);
      t.is(response.functionResponse.name, 'weather');
      t.regex(JSON.stringify(response.functionResponse.response), /18C/);
    },
  },
};

/** The anthropic non-stream recording calls `json`, the stream one `get_weather`. */
function toolFor(kind: Kind, stream: boolean): OpenAI.Responses.FunctionTool {
  const c = CASES[kind];
  const name = kind === 'anthropic' && !stream ? 'json' : c.tool.name;
  return { type: 'function', name, description: 'a tool', parameters: c.tool.parameters, strict: false };
}

function answer(res: Parameters<typeof replyJson>[0], a: { json?: string; sse?: string }): void {
  if (a.sse !== undefined) void replySse(res, a.sse);
  else replyJson(res, 200, a.json!);
}

for (const kind of ['anthropic', 'gemini'] as const) {
  for (const stream of [false, true]) {
    const api = stream ? 'responses.stream' : 'responses.create';
    test(`${kind} (translated): ${api} with a function tool, then the function_call_output round trip`, async (t) => {
      const c = CASES[kind];
      const { up, client } = await rig(t, kind, c.model, (_req, res) => answer(res, up.received.length === 1 ? c.first(stream) : c.second(stream)));
      const tools = [toolFor(kind, stream)];
      const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Weather?' }];
      const first = stream
        ? await client.responses.stream({ model: c.model, input, tools }).finalResponse()
        : await client.responses.create({ model: c.model, input, tools });
      t.is(first.status, 'completed');
      t.is(first.model, c.model);
      t.regex(first.id, /^resp_[0-9a-f]{48}$/);
      const call = first.output.find((o) => o.type === 'function_call');
      if (call?.type !== 'function_call') return t.fail('no function_call item');
      t.is(call.name, tools[0]!.name);
      t.truthy(call.call_id);
      t.notThrows(() => JSON.parse(call.arguments));
      if (c.args) t.deepEqual(JSON.parse(call.arguments), c.args);
      t.true(first.usage!.input_tokens > 0);

      const secondInput = [
        ...input,
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output' as const, call_id: call.call_id, output: '18C' },
      ];
      const second = stream
        ? await client.responses.stream({ model: c.model, input: secondInput, tools }).finalResponse()
        : await client.responses.create({ model: c.model, input: secondInput, tools });
      t.is(second.status, 'completed');
      t.true(second.output_text.length > 0);
      t.is(up.received.length, 2);
      c.checkSecond(t, up.received[1]!, call.call_id);
    });
  }
}
