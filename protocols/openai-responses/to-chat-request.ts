/**
 * A Responses request → a common-format ChatRequest, for POST /v1/responses served by a
 * provider that does not speak the Responses API. The field-by-field table (mapped, dropped
 * with a warning, 400) is in this folder's README.md. Follows OpenAI's API reference,
 * "Responses: Create a model response" and "Chat: Create chat completion".
 */
import { badRequest, type ChatMessage, type ChatRequest, type ContentPart, type ToolCall, isObject } from 'gw/plugin';
import { quoted, Warnings } from 'gw/plugin/format';
import { failField } from '../../core/error-codes.ts';
import { stringField } from '../../lib/common/fields.ts';
import { mapToolChoice, mapTools, type ToolNames } from './map-tools.ts';
import type { ResponsesRequest } from './types.ts';

type Obj = Record<string, unknown>;

/** The translated request and what the translation left out. */
export interface ToChatResult {
  req: ChatRequest;
  /** One line per kind of input that was dropped (for a debug log). */
  warnings: string[];
  /** Built-in and custom tools dropped (`web_search`, `custom:apply_patch`…), for the log and `x-gw-dropped-tools`. */
  droppedTools: string[];
  /** Flat name ⇄ `{namespace, name}`; the response translators need it to restore namespaced calls. */
  toolNames: ToolNames;
}

/** Top-level fields that are mapped, or consumed by the route; any other field is dropped with a warning. */
const HANDLED = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'text',
  'reasoning',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'metadata',
  'stream',
  // state: the route stores responses and resolves previous_response_id before translating
  'store',
  'previous_response_id',
]);

/** Fields whose meaning cannot be kept by dropping them: the client would get a different kind of answer. */
const REFUSED: Record<string, string> = {
  background: 'background responses are not supported on this model (it is served by translation)',
  conversation: 'conversations are not supported; send the history in input or use previous_response_id',
  prompt: 'prompt templates are not supported; send instructions and input',
};

/** Item types with no common-format form that a history may carry from an earlier native turn. */
const CALL_ITEMS = new Set(['local_shell_call', 'shell_call', 'custom_tool_call', 'computer_call', 'apply_patch_call', 'mcp_call']);

/**
 * Translates a parsed Responses body, field by field as the README's table says. `input` must
 * already hold the whole conversation (the route prepends `previous_response_id`'s items).
 * `stream: true` also sets `stream_options.include_usage`: gw accounts every stream.
 * @throws GatewayError 400 with `param` naming the field (`input[2].content[0].file_url`) for
 *   an invalid shape, a part with no common-format form, a `tool_choice` forcing a dropped
 *   tool, or a field whose loss would change the kind of answer (`background`…).
 */
export function responsesToChatRequest(body: ResponsesRequest): ToChatResult {
  if (!isObject(body)) throw badRequest('request body must be a JSON object');
  const w = new Warnings();
  if (typeof body.model !== 'string' || body.model === '') failField('model', 'model must be a non-empty string');
  for (const [key, why] of Object.entries(REFUSED)) {
    if (body[key] !== undefined && body[key] !== null && body[key] !== false) failField(key, why);
  }

  const mapped = mapTools(body.tools, w);
  const messages: ChatMessage[] = [];
  if (body.instructions !== undefined && body.instructions !== null) {
    if (typeof body.instructions !== 'string') failField('instructions', 'instructions must be a string');
    if (body.instructions !== '') messages.push({ role: 'system', content: body.instructions });
  }
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else if (body.input !== undefined && body.input !== null) convertItems(body.input, messages, mapped.names, w);
  if (messages.length === 0 || messages.every((m) => m.role === 'system')) failField('input', 'must hold at least one message');

  const req: ChatRequest = { model: body.model, messages };
  if (mapped.tools.length > 0) req.tools = mapped.tools;
  mapToolChoice(body.tool_choice, mapped, req, w);
  if (body.parallel_tool_calls !== undefined && body.parallel_tool_calls !== null) {
    if (typeof body.parallel_tool_calls !== 'boolean') failField('parallel_tool_calls', 'parallel_tool_calls must be a boolean');
    // Common-format upstreams reject parallel_tool_calls without tools.
    if (req.tools) req.parallel_tool_calls = body.parallel_tool_calls;
    else w.add('parallel_tool_calls dropped: no tools left', 'parallel_tool_calls');
  }
  if (body.max_output_tokens !== undefined && body.max_output_tokens !== null) {
    if (!Number.isInteger(body.max_output_tokens) || body.max_output_tokens < 1) failField('max_output_tokens', 'max_output_tokens must be a positive integer');
    req.max_tokens = body.max_output_tokens;
  }
  for (const key of ['temperature', 'top_p'] as const) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) failField(key, `${key} must be a number`);
    req[key] = v;
  }
  convertText(body.text, req, w);
  convertReasoning(body.reasoning, req, w);
  // the prompt cache's routing key and TTL: chat completions has both (a vendor without them drops them, logged)
  for (const key of ['user', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention'] as const) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') failField(key, `${key} must be a string`);
    req[key] = v;
  }
  if (body.metadata !== undefined && body.metadata !== null) {
    if (!isObject(body.metadata) || !Object.values(body.metadata).every((v) => typeof v === 'string'))
      failField('metadata', 'metadata must be an object of strings');
    req.metadata = body.metadata;
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') failField('stream', 'stream must be a boolean');
  if (body.stream === true) {
    req.stream = true;
    req.stream_options = { include_usage: true };
  }
  if (body.store !== undefined && body.store !== null && typeof body.store !== 'boolean') failField('store', 'store must be a boolean');
  if (body.previous_response_id !== undefined && body.previous_response_id !== null && typeof body.previous_response_id !== 'string') {
    failField('previous_response_id', 'previous_response_id must be a string');
  }

  for (const key of Object.keys(body)) {
    if (!HANDLED.has(key) && !Object.hasOwn(REFUSED, key) && body[key] !== null) w.add(`${key} dropped: no common-format equivalent`, key);
  }
  for (const tool of mapped.dropped) w.add(`tool ${tool} dropped: built-in tools cannot run on this model's provider`, 'tools');
  return { req, warnings: w.list(), droppedTools: mapped.dropped, toolNames: mapped.names };
}

/** Folds the items into chat messages; see {@link responsesToChatRequest}. */
function convertItems(input: unknown, messages: ChatMessage[], names: ToolNames, w: Warnings): void {
  if (!Array.isArray(input)) failField('input', 'input must be a string or an array of items');
  /** The assistant turn being assembled from reasoning, message and function_call items. */
  let turn: ChatMessage | null = null;
  const flush = (): void => {
    if (turn === null) return;
    if (turn.content === null && !turn.tool_calls) turn.content = '';
    messages.push(turn);
    turn = null;
  };
  const calls = new Set<string>();
  const droppedCalls = new Set<string>();

  input.forEach((item, i) => {
    const ip = `input[${i}]`;
    if (!isObject(item)) failField(ip, 'item must be an object');
    const type = item.type ?? 'message';
    switch (type) {
      case 'message': {
        if (item.role === 'assistant') {
          if (turn !== null && (turn.content !== null || turn.tool_calls)) flush();
          turn ??= { role: 'assistant', content: null };
          turn.content = assistantText(item.content, ip);
          return;
        }
        flush();
        messages.push(inputMessage(item, ip));
        return;
      }
      case 'function_call': {
        const callId = stringField(item, 'call_id', ip);
        const name = stringField(item, 'name', ip);
        const args = item.arguments === undefined || item.arguments === null ? '' : item.arguments;
        if (typeof args !== 'string') failField(`${ip}.arguments`, 'arguments must be a JSON string');
        if (item.namespace !== undefined && item.namespace !== null && typeof item.namespace !== 'string')
          failField(`${ip}.namespace`, 'namespace must be a string');
        turn ??= { role: 'assistant', content: null };
        const call: ToolCall = { id: callId, type: 'function', function: { name: names.flatten(item.namespace as string | undefined, name), arguments: args } };
        (turn.tool_calls ??= []).push(call);
        calls.add(callId);
        return;
      }
      case 'function_call_output': {
        flush();
        const callId = stringField(item, 'call_id', ip);
        if (!calls.has(callId)) {
          if (droppedCalls.has(callId)) {
            w.add('outputs of dropped built-in tool calls dropped', ip);
            return;
          }
          failField(`${ip}.call_id`, 'no function_call with this call_id precedes this output', quoted(callId));
        }
        const extra: ContentPart[] = [];
        messages.push({ role: 'tool', tool_call_id: callId, content: toolOutput(item.output, `${ip}.output`, extra, w) });
        if (extra.length > 0) messages.push({ role: 'user', content: extra });
        return;
      }
      case 'reasoning': {
        const text = reasoningText(item, ip, w);
        if (text === '') return;
        if (turn !== null && (turn.content !== null || turn.tool_calls)) flush();
        turn ??= { role: 'assistant', content: null };
        turn.reasoning_content = typeof turn.reasoning_content === 'string' && turn.reasoning_content !== '' ? `${turn.reasoning_content}\n\n${text}` : text;
        return;
      }
      case 'item_reference': {
        failField(`${ip}.type`, 'item references are not supported: send the item itself');
        break;
      }
      default: {
        if (typeof type !== 'string') failField(`${ip}.type`, 'type must be a string');
        if (CALL_ITEMS.has(type) && typeof item.call_id === 'string') droppedCalls.add(item.call_id);
        w.add(`input items of type ${type} dropped: built-in tool items have no common-format form`, ip);
      }
    }
  });
  flush();
}

/** A user, system or developer message. `developer` becomes `system` (the common format's instruction role). */
function inputMessage(item: Obj, ip: string): ChatMessage {
  const role = item.role;
  if (role === 'system' || role === 'developer') return { role: 'system', content: instructionText(item.content, ip) };
  if (role !== 'user') failField(`${ip}.role`, 'role must be "user", "assistant", "system" or "developer"');
  if (typeof item.content === 'string') return { role: 'user', content: item.content };
  const parts = partsOf(item.content, `${ip}.content`).map((p, j) => userPart(p, `${ip}.content[${j}]`));
  return { role: 'user', content: simplify(parts) };
}

function instructionText(content: unknown, ip: string): string {
  if (typeof content === 'string') return content;
  return partsOf(content, `${ip}.content`)
    .map((p, j) => {
      if (p.type !== 'input_text' && p.type !== 'output_text') failField(`${ip}.content[${j}].type`, 'system and developer messages hold text parts only');
      return stringField(p, 'text', `${ip}.content[${j}]`);
    })
    .join('\n\n');
}

function assistantText(content: unknown, ip: string): string {
  if (typeof content === 'string') return content;
  return partsOf(content, `${ip}.content`)
    .map((p, j) => {
      const pp = `${ip}.content[${j}]`;
      if (p.type === 'output_text' || p.type === 'input_text') return stringField(p, 'text', pp);
      if (p.type === 'refusal') return stringField(p, 'refusal', pp);
      return failField(`${pp}.type`, 'assistant messages hold output_text and refusal parts only');
    })
    .join('');
}

function userPart(p: Obj & { type: string }, pp: string): ContentPart {
  switch (p.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: stringField(p, 'text', pp) };
    case 'input_image': {
      if (typeof p.image_url !== 'string' || p.image_url === '') {
        if (typeof p.file_id === 'string') failField(`${pp}.file_id`, 'file_id images are not supported (gw has no Files API): send image_url');
        failField(`${pp}.image_url`, 'image_url must be a URL or a data URL');
      }
      const image: { url: string; detail?: string } = { url: p.image_url };
      if (typeof p.detail === 'string' && p.detail !== 'auto') image.detail = p.detail;
      return { type: 'image_url', image_url: image };
    }
    case 'input_file': {
      if (typeof p.file_data === 'string' && p.file_data !== '') {
        const file: { file_data: string; filename?: string } = { file_data: p.file_data };
        if (typeof p.filename === 'string') file.filename = p.filename;
        return { type: 'file', file };
      }
      if (typeof p.file_url === 'string') failField(`${pp}.file_url`, 'file_url is not supported on this model: send the file as file_data');
      if (typeof p.file_id === 'string') failField(`${pp}.file_id`, 'file_id is not supported (gw has no Files API): send file_data');
      return failField(pp, 'input_file needs file_data');
    }
    default:
      failField(`${pp}.type`, 'content part type is not supported in a user message', quoted(p.type));
  }
}

/** A function call's output → tool message text; images and files go to `extra` (common-format tool messages carry text only). */
function toolOutput(output: unknown, op: string, extra: ContentPart[], w: Warnings): string {
  if (typeof output === 'string') return output;
  const texts: string[] = [];
  partsOf(output, op).forEach((p, j) => {
    const pp = `${op}[${j}]`;
    if (p.type === 'input_text' || p.type === 'output_text') texts.push(stringField(p, 'text', pp));
    else {
      extra.push(userPart(p, pp));
      w.add('function_call_output images and files moved to a user message after the tool message', pp);
    }
  });
  return texts.join('\n');
}

/** A reasoning item's `reasoning_text` parts; summaries (not what the model thought) and `encrypted_content` are dropped. */
function reasoningText(item: Obj, ip: string, w: Warnings): string {
  const texts: string[] = [];
  if (item.content !== undefined && item.content !== null) {
    partsOf(item.content, `${ip}.content`).forEach((p, j) => {
      if (p.type === 'reasoning_text' || p.type === 'text') texts.push(stringField(p, 'text', `${ip}.content[${j}]`));
    });
  }
  if (texts.length === 0 && Array.isArray(item.summary) && item.summary.length > 0)
    w.add('reasoning summaries dropped: only reasoning_text content is passed on', ip);
  if (typeof item.encrypted_content === 'string' && item.encrypted_content !== '') w.add('reasoning encrypted_content dropped: only OpenAI can read it', ip);
  return texts.join('\n');
}

function convertText(text: unknown, req: ChatRequest, w: Warnings): void {
  if (text === undefined || text === null) return;
  if (!isObject(text)) failField('text', 'text must be an object');
  for (const key of Object.keys(text)) {
    if (key !== 'format' && text[key] !== null) w.add(`text.${key} dropped: no common-format equivalent`, `text.${key}`);
  }
  const f = text.format;
  if (f === undefined || f === null) return;
  if (!isObject(f)) failField('text.format', 'format must be an object');
  switch (f.type) {
    case 'text':
      return;
    case 'json_object':
      req.response_format = { type: 'json_object' };
      return;
    case 'json_schema': {
      if (!isObject(f.schema)) failField('text.format.schema', 'schema must be an object');
      const js: NonNullable<ChatRequest['response_format']>['json_schema'] & object = {
        name: typeof f.name === 'string' && f.name !== '' ? f.name : 'output',
        schema: f.schema,
      };
      if (typeof f.strict === 'boolean') js.strict = f.strict;
      if (typeof f.description === 'string') js.description = f.description;
      req.response_format = { type: 'json_schema', json_schema: js };
      return;
    }
    default:
      failField('text.format.type', 'type must be "text", "json_object" or "json_schema"');
  }
}

function convertReasoning(r: unknown, req: ChatRequest, w: Warnings): void {
  if (r === undefined || r === null) return;
  if (!isObject(r)) failField('reasoning', 'reasoning must be an object');
  for (const [key, v] of Object.entries(r)) {
    if (v === null || v === undefined) continue;
    if (key === 'effort') {
      if (typeof v !== 'string') failField('reasoning.effort', 'effort must be a string');
      req.reasoning_effort = v;
    } else {
      w.add(`reasoning.${key} dropped: no common-format equivalent`, `reasoning.${key}`);
    }
  }
}

function partsOf(content: unknown, path: string): Array<Obj & { type: string }> {
  if (!Array.isArray(content)) failField(path, 'content must be a string or an array of parts');
  return content.map((p, j) => {
    if (!isObject(p)) failField(`${path}[${j}]`, 'content part must be an object');
    if (typeof p.type !== 'string') failField(`${path}[${j}].type`, 'type must be a string');
    return p as Obj & { type: string };
  });
}

function simplify(parts: ContentPart[]): string | ContentPart[] {
  const [only] = parts;
  return parts.length === 1 && only.type === 'text' && typeof only.text === 'string' ? only.text : parts;
}
