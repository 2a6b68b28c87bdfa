/**
 * A Messages request → a common-format ChatRequest, for POST /v1/messages served by a
 * common-format upstream. Follows Anthropic's Messages API reference and OpenAI's API
 * reference, "Chat: Create chat completion".
 */
import { badRequest, type ChatMessage, type ChatRequest, type ChatTool, type ToolChoice, isObject } from 'gw/plugin';
import { Warnings } from 'gw/plugin/format';
import { failField } from '../../core/error-codes.ts';
import { stringField } from '../../lib/common/fields.ts';
import { convertMessage, systemText } from './convert-turns.ts';
import type { MessagesRequest } from './types.ts';

/** The translated request and one line per kind of input that had to be dropped. */
export interface ToChatResult {
  req: ChatRequest;
  warnings: string[];
}

/** Top-level fields mapped below; any other field is dropped with a warning. */
const MAPPED = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'stream',
  'stop_sequences',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'metadata',
  'output_config',
  'output_format',
]);

/**
 * Translates a parsed Messages body into a ChatRequest (blocks and turns: convert-turns.ts).
 *
 * - `system` → a leading `system` message (blocks joined by a blank line: a string is what
 *   every common-format upstream accepts).
 * - tools → function tools; non-`custom` (server) tools dropped. tool_choice
 *   auto/any/none/tool → `auto`/`required`/`none`/named.
 * - `max_tokens` stays `max_tokens` (not `max_completion_tokens`: older upstreams accept only
 *   it); `stop_sequences` → `stop`; `metadata.user_id` → `user`; `output_config.format` →
 *   `response_format`; `stream: true` also asks `include_usage` (gw needs usage).
 * - dropped with a warning: `thinking`, `top_k`, `context_management`, other `metadata` keys,
 *   and unknown fields (unlike /v1/chat/completions: a common-format upstream would reject them).
 * @throws GatewayError 400 with `param` naming the field (`messages[2].content[0].type`) when
 *   the body is not a valid Messages request or holds a block with no common-format form.
 */
export function messagesToChatRequest(body: MessagesRequest): ToChatResult {
  if (!isObject(body)) throw badRequest('request body must be a JSON object');
  const w = new Warnings();
  if (typeof body.model !== 'string' || body.model === '') failField('model', 'model must be a non-empty string');
  if (!Array.isArray(body.messages)) failField('messages', 'messages must be an array');

  const messages: ChatMessage[] = [];
  if (body.system !== undefined) {
    const text = systemText(body.system, 'system', w);
    if (text !== '') messages.push({ role: 'system', content: text });
  }
  for (let i = 0; i < body.messages.length; i++) convertMessage(body.messages[i]!, `messages[${i}]`, w, messages);

  const req: ChatRequest = { model: body.model, messages };
  if (body.max_tokens !== undefined) {
    if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) failField('max_tokens', 'max_tokens must be a positive integer');
    req.max_tokens = body.max_tokens;
  }
  for (const key of ['temperature', 'top_p'] as const) {
    const v = body[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) failField(key, `${key} must be a number`);
    req[key] = v;
  }
  if (body.stop_sequences !== undefined) {
    if (!Array.isArray(body.stop_sequences) || !body.stop_sequences.every((s) => typeof s === 'string')) {
      failField('stop_sequences', 'stop_sequences must be an array of strings');
    }
    if (body.stop_sequences.length > 0) req.stop = [...body.stop_sequences];
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') failField('stream', 'stream must be a boolean');
  if (body.stream === true) {
    req.stream = true;
    req.stream_options = { include_usage: true };
  }

  const tools = convertTools(body.tools, w);
  if (tools.length > 0) req.tools = tools;
  if (body.tool_choice !== undefined) convertToolChoice(body.tool_choice, tools.length > 0, req, w);
  if (body.metadata !== undefined) convertMetadata(body.metadata, req, w);
  convertOutputFormat(body, req, w);

  for (const key of Object.keys(body)) {
    if (!MAPPED.has(key)) w.add(`${key} dropped: no common-format equivalent`, key);
  }
  return { req, warnings: w.list() };
}

function convertTools(tools: unknown, w: Warnings): ChatTool[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) failField('tools', 'tools must be an array');
  const out: ChatTool[] = [];
  tools.forEach((t, i) => {
    const tp = `tools[${i}]`;
    if (!isObject(t)) failField(tp, 'tool must be an object');
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      w.add(`tools of type "${String(t.type)}" dropped: only custom tools have a common-format form`, tp);
      return;
    }
    if (t.cache_control !== undefined) w.add('cache_control dropped: no common-format equivalent', tp);
    const name = stringField(t, 'name', tp);
    const schema = t.input_schema ?? { type: 'object', properties: {} };
    if (!isObject(schema)) failField(`${tp}.input_schema`, 'input_schema must be an object');
    const fn: ChatTool['function'] = { name, parameters: schema };
    if (typeof t.description === 'string') fn.description = t.description;
    if (typeof t.strict === 'boolean') fn.strict = t.strict;
    out.push({ type: 'function', function: fn });
  });
  return out;
}

function convertToolChoice(tc: unknown, haveTools: boolean, req: ChatRequest, w: Warnings): void {
  if (!isObject(tc)) failField('tool_choice', 'tool_choice must be an object');
  let choice: ToolChoice;
  switch (tc.type) {
    case 'auto':
      choice = 'auto';
      break;
    case 'any':
      choice = 'required';
      break;
    case 'none':
      choice = 'none';
      break;
    case 'tool':
      choice = { type: 'function', function: { name: stringField(tc, 'name', 'tool_choice') } };
      break;
    default:
      failField('tool_choice.type', 'tool_choice.type must be "auto", "any", "none" or "tool"');
  }
  // Common-format upstreams reject tool_choice without tools (all of them may have been dropped above).
  if (!haveTools) {
    w.add('tool_choice dropped: no tools left to choose from', 'tool_choice');
    return;
  }
  req.tool_choice = choice;
  if (tc.disable_parallel_tool_use === true && choice !== 'none') req.parallel_tool_calls = false;
}

function convertMetadata(md: unknown, req: ChatRequest, w: Warnings): void {
  if (!isObject(md)) failField('metadata', 'metadata must be an object');
  for (const [key, v] of Object.entries(md)) {
    if (key === 'user_id' && typeof v === 'string') req.user = v;
    else if (key !== 'user_id' || v !== null) w.add(`metadata.${key} dropped: no common-format equivalent`, `metadata.${key}`);
  }
}

/** `output_config.format` (and its older top-level name `output_format`) → `response_format`. */
function convertOutputFormat(body: MessagesRequest, req: ChatRequest, w: Warnings): void {
  const oc = body.output_config;
  if (oc !== undefined && !isObject(oc)) failField('output_config', 'output_config must be an object');
  for (const key of Object.keys(oc ?? {})) {
    if (key !== 'format') w.add(`output_config.${key} dropped: no common-format equivalent`, `output_config.${key}`);
  }
  const [fmt, param] = oc?.format !== undefined ? [oc.format, 'output_config.format'] : [body.output_format, 'output_format'];
  if (fmt === undefined || fmt === null) return;
  if (!isObject(fmt) || fmt.type !== 'json_schema' || !isObject(fmt.schema)) {
    failField(param, 'format must be {"type": "json_schema", "schema": {...}}');
  }
  req.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: fmt.schema } };
}
