/**
 * A Messages request → a common-format ChatRequest, for POST /v1/messages served by a
 * common-format upstream.
 *
 * @see https://docs.anthropic.com/en/api/messages (request body)
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
import { badRequest, quoted } from '../../../core/error-codes.ts';
import type { ChatMessage, ChatRequest, ChatTool, ContentPart, ToolCall, ToolChoice } from '../../../core/format/chat.ts';
import { Warnings } from '../../../core/format/warnings.ts';
import type { MessagesRequest } from './types.ts';

/** The translated request and one line per kind of input that had to be dropped. */
export interface ToChatResult {
  req: ChatRequest;
  warnings: string[];
}

type Obj = Record<string, unknown>;

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
 * Translates a Messages request body (already JSON-parsed) into a ChatRequest.
 *
 * - `system` (string or text blocks, joined by a blank line: a string is what every
 *   common-format upstream accepts) → a leading `system` message; a `role: "system"` message
 *   inside `messages` → a `system` message at the same position.
 * - text blocks → `content` (a string for one text block, else parts); images → `image_url`
 *   (base64 as a data URI); documents: text source → text part, base64 → `file` part.
 * - assistant `tool_use` → `tool_calls` (`arguments = JSON.stringify(input)`).
 * - user `tool_result` → one `tool` message each, placed before the rest of that user turn
 *   (the common format wants tool messages right after the assistant's calls). Text blocks
 *   are joined by newlines; `is_error: true` prefixes `Error: ` because the common format has
 *   no error flag and the model must still learn the call failed; images inside a result
 *   move to the user message that follows (tool messages carry text only).
 * - tools → function tools (`input_schema` kept intact as `parameters`); tools with a
 *   `type` other than `custom` (server or vendor-defined tools) are dropped.
 * - tool_choice auto/any/none/tool → `auto`/`required`/`none`/named;
 *   `disable_parallel_tool_use` → `parallel_tool_calls: false`.
 * - `max_tokens` → `max_tokens` (not `max_completion_tokens`: common-format upstreams other
 *   than the newest reasoning models accept it); `stop_sequences` → `stop`; `temperature`,
 *   `top_p` as is; `metadata.user_id` → `user`; `output_config.format` (JSON schema) →
 *   `response_format`; `stream: true` → also `stream_options.include_usage` (gw needs usage).
 * - dropped with a warning: thinking blocks, `cache_control`, `thinking`,
 *   `context_management`, `top_k`, other `metadata` keys, server-tool blocks, and every
 *   unknown top-level field. Unlike /v1/chat/completions, unknown fields are not passed on:
 *   they are this format's fields, and a common-format upstream would reject them.
 *
 * @throws GatewayError 400 with `param` naming the field (e.g. `messages[2].content[0].type`)
 *   when the body is not a valid Messages request or holds a block with no common-format form.
 */
export function messagesToChatRequest(body: MessagesRequest): ToChatResult {
  if (!isObj(body)) throw badRequest('request body must be a JSON object');
  const w = new Warnings();
  if (typeof body.model !== 'string' || body.model === '') fail('model must be a non-empty string', 'model');
  if (!Array.isArray(body.messages)) fail('messages must be an array', 'messages');

  const messages: ChatMessage[] = [];
  if (body.system !== undefined) {
    const text = systemText(body.system, 'system', w);
    if (text !== '') messages.push({ role: 'system', content: text });
  }
  for (let i = 0; i < body.messages.length; i++) convertMessage(body.messages[i]!, `messages[${i}]`, w, messages);

  const req: ChatRequest = { model: body.model, messages };
  if (body.max_tokens !== undefined) {
    if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) fail('max_tokens must be a positive integer', 'max_tokens');
    req.max_tokens = body.max_tokens;
  }
  for (const key of ['temperature', 'top_p'] as const) {
    const v = body[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${key} must be a number`, key);
    req[key] = v;
  }
  if (body.stop_sequences !== undefined) {
    if (!Array.isArray(body.stop_sequences) || !body.stop_sequences.every((s) => typeof s === 'string')) {
      fail('stop_sequences must be an array of strings', 'stop_sequences');
    }
    if (body.stop_sequences.length > 0) req.stop = [...body.stop_sequences];
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') fail('stream must be a boolean', 'stream');
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

/** Appends the chat messages of one Messages turn to `out`. */
function convertMessage(m: unknown, path: string, w: Warnings, out: ChatMessage[]): void {
  if (!isObj(m)) fail('message must be an object', path);
  switch (m.role) {
    case 'system':
      // Some clients put a system turn inside `messages` for non-Claude models: keep it in place.
      out.push({ role: 'system', content: systemText(m.content, `${path}.content`, w) });
      return;
    case 'user':
      userMessages(m.content, path, w, out);
      return;
    case 'assistant':
      out.push(assistantMessage(m.content, path, w));
      return;
    default:
      fail('role must be "user" or "assistant"', `${path}.role`);
  }
}

function systemText(content: unknown, path: string, w: Warnings): string {
  if (typeof content === 'string') return content;
  return blocksOf(content, path)
    .map((b, j) => {
      const bp = `${path}[${j}]`;
      if (b.type !== 'text') fail('system content blocks must be text blocks', `${bp}.type`);
      noteBlockExtras(b, bp, w);
      return stringField(b, 'text', bp);
    })
    .join('\n\n');
}

/** Appends a user turn: one tool message per tool_result, then the user message with the rest. */
function userMessages(content: unknown, path: string, w: Warnings, out: ChatMessage[]): void {
  if (typeof content === 'string') {
    out.push({ role: 'user', content });
    return;
  }
  const before = out.length;
  const parts: ContentPart[] = [];
  blocksOf(content, `${path}.content`).forEach((b, j) => {
    const bp = `${path}.content[${j}]`;
    noteBlockExtras(b, bp, w);
    switch (b.type) {
      case 'text':
        parts.push({ type: 'text', text: stringField(b, 'text', bp) });
        break;
      case 'image':
        parts.push(imagePart(b, bp));
        break;
      case 'document':
        parts.push(documentPart(b, bp));
        break;
      case 'tool_result':
        out.push(toolMessage(b, bp, parts, w));
        break;
      default:
        if (!droppable(b.type)) fail('content block type is not supported in a user message', `${bp}.type`, quoted(b.type));
        w.add(`${b.type} blocks dropped: no common-format equivalent`, bp);
    }
  });
  if (parts.length > 0) out.push({ role: 'user', content: simplify(parts) });
  else if (out.length === before) out.push({ role: 'user', content: '' });
}

function assistantMessage(content: unknown, path: string, w: Warnings): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const parts: ContentPart[] = [];
  const calls: ToolCall[] = [];
  blocksOf(content, `${path}.content`).forEach((b, j) => {
    const bp = `${path}.content[${j}]`;
    noteBlockExtras(b, bp, w);
    switch (b.type) {
      case 'text':
        parts.push({ type: 'text', text: stringField(b, 'text', bp) });
        break;
      case 'tool_use': {
        const input = b.input === undefined ? {} : b.input;
        if (!isObj(input)) fail('tool_use input must be an object', `${bp}.input`);
        calls.push({
          id: stringField(b, 'id', bp),
          type: 'function',
          function: { name: stringField(b, 'name', bp), arguments: JSON.stringify(input) },
        });
        break;
      }
      default:
        if (!droppable(b.type)) fail('content block type is not supported in an assistant message', `${bp}.type`, quoted(b.type));
        w.add(`${b.type} blocks dropped: no common-format equivalent`, bp);
    }
  });
  const msg: ChatMessage = { role: 'assistant', content: parts.length > 0 ? simplify(parts) : calls.length > 0 ? null : '' };
  if (calls.length > 0) msg.tool_calls = calls;
  return msg;
}

/** `parts` receives the images of the result, which a tool message cannot carry. */
function toolMessage(b: Obj, bp: string, parts: ContentPart[], w: Warnings): ChatMessage {
  const id = stringField(b, 'tool_use_id', bp);
  let text: string;
  if (b.content === undefined || b.content === null) {
    text = '';
  } else if (typeof b.content === 'string') {
    text = b.content;
  } else {
    const texts: string[] = [];
    blocksOf(b.content, `${bp}.content`).forEach((inner, k) => {
      const ip = `${bp}.content[${k}]`;
      noteBlockExtras(inner, ip, w);
      if (inner.type === 'text') {
        texts.push(stringField(inner, 'text', ip));
      } else if (inner.type === 'image') {
        parts.push(imagePart(inner, ip));
        w.add('tool_result images moved to the following user message', ip);
      } else {
        w.add(`${inner.type} blocks inside tool_result dropped: tool messages carry text only`, ip);
      }
    });
    text = texts.join('\n');
  }
  if (b.is_error === true) text = text === '' ? 'Error' : `Error: ${text}`;
  return { role: 'tool', tool_call_id: id, content: text };
}

function imagePart(b: Obj, bp: string): ContentPart {
  const src = b.source;
  if (!isObj(src)) fail('image source must be an object', `${bp}.source`);
  if (src.type === 'base64') {
    const mediaType = stringField(src, 'media_type', `${bp}.source`);
    const data = stringField(src, 'data', `${bp}.source`);
    return { type: 'image_url', image_url: { url: `data:${mediaType};base64,${data}` } };
  }
  if (src.type === 'url') return { type: 'image_url', image_url: { url: stringField(src, 'url', `${bp}.source`) } };
  fail('image source type must be "base64" or "url"', `${bp}.source.type`);
}

function documentPart(b: Obj, bp: string): ContentPart {
  const src = b.source;
  if (!isObj(src)) fail('document source must be an object', `${bp}.source`);
  if (src.type === 'text') return { type: 'text', text: stringField(src, 'data', `${bp}.source`) };
  if (src.type === 'base64') {
    const mediaType = stringField(src, 'media_type', `${bp}.source`);
    const data = stringField(src, 'data', `${bp}.source`);
    const filename = typeof b.title === 'string' && b.title !== '' ? b.title : 'document.pdf';
    return { type: 'file', file: { filename, file_data: `data:${mediaType};base64,${data}` } };
  }
  fail('document source type must be "text" or "base64"', `${bp}.source.type`);
}

function convertTools(tools: unknown, w: Warnings): ChatTool[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) fail('tools must be an array', 'tools');
  const out: ChatTool[] = [];
  tools.forEach((t, i) => {
    const tp = `tools[${i}]`;
    if (!isObj(t)) fail('tool must be an object', tp);
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      w.add(`tools of type "${String(t.type)}" dropped: only custom tools have a common-format form`, tp);
      return;
    }
    if (t.cache_control !== undefined) w.add('cache_control dropped: no common-format equivalent', tp);
    const name = stringField(t, 'name', tp);
    const schema = t.input_schema ?? { type: 'object', properties: {} };
    if (!isObj(schema)) fail('input_schema must be an object', `${tp}.input_schema`);
    const fn: ChatTool['function'] = { name, parameters: schema };
    if (typeof t.description === 'string') fn.description = t.description;
    if (typeof t.strict === 'boolean') fn.strict = t.strict;
    out.push({ type: 'function', function: fn });
  });
  return out;
}

function convertToolChoice(tc: unknown, haveTools: boolean, req: ChatRequest, w: Warnings): void {
  if (!isObj(tc)) fail('tool_choice must be an object', 'tool_choice');
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
      fail('tool_choice.type must be "auto", "any", "none" or "tool"', 'tool_choice.type');
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
  if (!isObj(md)) fail('metadata must be an object', 'metadata');
  for (const [key, v] of Object.entries(md)) {
    if (key === 'user_id' && typeof v === 'string') req.user = v;
    else if (key !== 'user_id' || v !== null) w.add(`metadata.${key} dropped: no common-format equivalent`, `metadata.${key}`);
  }
}

/** `output_config.format` (and its older top-level name `output_format`) → `response_format`. */
function convertOutputFormat(body: MessagesRequest, req: ChatRequest, w: Warnings): void {
  const oc = body.output_config;
  if (oc !== undefined && !isObj(oc)) fail('output_config must be an object', 'output_config');
  for (const key of Object.keys(oc ?? {})) {
    if (key !== 'format') w.add(`output_config.${key} dropped: no common-format equivalent`, `output_config.${key}`);
  }
  const [fmt, param] = oc?.format !== undefined ? [oc.format, 'output_config.format'] : [body.output_format, 'output_format'];
  if (fmt === undefined || fmt === null) return;
  if (!isObj(fmt) || fmt.type !== 'json_schema' || !isObj(fmt.schema)) {
    fail('format must be {"type": "json_schema", "schema": {...}}', param);
  }
  req.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: fmt.schema } };
}

/** Block types a Messages history may hold that have no common-format form and carry nothing the model needs. */
function droppable(type: string): boolean {
  return (
    type === 'thinking' ||
    type === 'redacted_thinking' ||
    type === 'server_tool_use' ||
    type === 'mcp_tool_use' ||
    type === 'container_upload' ||
    (type.endsWith('_tool_result') && type !== 'tool_result')
  );
}

function noteBlockExtras(b: Obj, bp: string, w: Warnings): void {
  if (b.cache_control !== undefined) w.add('cache_control dropped: no common-format equivalent', `${bp}.cache_control`);
}

function simplify(parts: ContentPart[]): string | ContentPart[] {
  const [only] = parts;
  return parts.length === 1 && only.type === 'text' && typeof only.text === 'string' ? only.text : parts;
}

function blocksOf(content: unknown, path: string): Array<Obj & { type: string }> {
  if (!Array.isArray(content)) fail('content must be a string or an array of content blocks', path);
  return content.map((b, j) => {
    if (!isObj(b)) fail('content block must be an object', `${path}[${j}]`);
    if (typeof b.type !== 'string') fail('content block type must be a string', `${path}[${j}].type`);
    return b as Obj & { type: string };
  });
}

function stringField(o: Obj, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== 'string') fail(`${key} must be a string`, `${path}.${key}`);
  return v;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Throws a 400 naming `param`; `got` (the value at fault) is quoted to the client only. */
function fail(message: string, param: string, got?: string): never {
  throw badRequest(`${param}: ${message}`, param, got);
}
