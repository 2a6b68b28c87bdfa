/**
 * Responses read format-free (the content view): `instructions`, `input` (a string or items:
 * messages, function and custom tool calls and their outputs, reasoning), a Response's
 * `output`, and stream events, where text comes twice: as deltas, then repeated whole by the
 * `*.done` and `*.added` events and by a lifecycle event's `response.output`.
 * @see OpenAI API reference: Create a model response, Responses streaming events
 */
import { type EventContent, type Message, type Part, type TextPart, type ToolCallPart, type ToolDefinition, isObject } from 'gw/plugin';
import { argumentsDelta, type ContentReader, type Edits, listOf, numberOf, stringOf, textAt, toolCall, toolResult } from 'gw/plugin/format';

type Obj = Record<string, unknown>;

const EMPTY: readonly never[] = Object.freeze([]);
const idOf = (item: Obj): string | undefined => (typeof item.call_id === 'string' ? item.call_id : undefined);
const nameOf = (item: Obj): string => (typeof item.name === 'string' ? item.name : '');

const ROLES: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant']);
/** Content part types whose `text` is reasoning. */
const REASONING: ReadonlySet<string> = new Set(['reasoning_text', 'summary_text']);

/** One content part: its `text` (reasoning for reasoning and summary parts), a refusal, or opaque (images, files, audio). */
function contentPart(part: Obj, at: Edits): Part {
  if (typeof part.text === 'string') return textAt(part, 'text', typeof part.type === 'string' && REASONING.has(part.type) ? 'reasoning' : 'text', at);
  if (part.type === 'refusal' && typeof part.refusal === 'string') return textAt(part, 'refusal', 'refusal', at);
  return { type: 'opaque', kind: typeof part.type === 'string' ? part.type : 'unknown' };
}

function contentParts(owner: Obj, at: Edits, out: Part[]): Part[] {
  if (typeof owner.content === 'string') {
    out.push(textAt(owner, 'content', 'text', at));
    return out;
  }
  for (const part of listOf(owner.content)) if (isObject(part)) out.push(contentPart(part, at));
  return out;
}

/** A reasoning item's summary and reasoning text (never its encrypted content). */
function reasoningParts(item: Obj, at: Edits, out: Part[]): Part[] {
  for (const part of listOf(item.summary)) if (isObject(part) && typeof part.text === 'string') out.push(textAt(part, 'text', 'reasoning', at));
  for (const part of listOf(item.content)) if (isObject(part) && typeof part.text === 'string') out.push(textAt(part, 'text', 'reasoning', at));
  return out;
}

/** The parts an item of the model's (in `output`, or `input` history) holds; unknown items (built-in tools' calls) hold none. */
function modelItemParts(item: Obj, at: Edits, out: Part[]): Part[] {
  switch (item.type) {
    case 'message':
      return contentParts(item, at, out);
    case 'function_call':
      out.push(toolCall(item, 'arguments', idOf(item), nameOf(item), at));
      return out;
    case 'custom_tool_call':
      out.push(toolCall(item, 'input', idOf(item), nameOf(item), at, true));
      return out;
    case 'reasoning':
      return reasoningParts(item, at, out);
    default:
      return out;
  }
}

/** An `input` item as a message: one per item, as on the wire. */
function inputMessage(item: Obj, at: Edits): Message | undefined {
  switch (item.type) {
    case 'function_call':
    case 'custom_tool_call':
    case 'reasoning':
      return { role: 'assistant', parts: modelItemParts(item, at, []) };
    case 'function_call_output':
    case 'custom_tool_call_output':
      return { role: 'tool', parts: [toolResult(item, 'output', idOf(item), at)] };
    default: {
      const role = item.role;
      if (typeof role !== 'string') return undefined;
      return { role: ROLES.has(role) ? (role as Message['role']) : 'user', parts: contentParts(item, at, []) };
    }
  }
}

function toolDefinition(tool: Obj, at: Edits, parameters: unknown): ToolDefinition {
  return { name: tool.name as string, description: typeof tool.description === 'string' ? textAt(tool, 'description', 'text', at) : undefined, parameters };
}

/** Responses' content reader. */
export const responsesContent: ContentReader = {
  instructions(body, at) {
    return typeof body.instructions === 'string' ? [textAt(body, 'instructions', 'text', at)] : EMPTY;
  },

  messages(body, at) {
    if (typeof body.input === 'string') return [{ role: 'user', parts: [textAt(body, 'input', 'text', at)] }];
    const out: Message[] = [];
    for (const item of listOf(body.input)) {
      const message = isObject(item) ? inputMessage(item, at) : undefined;
      if (message) out.push(message);
    }
    return out;
  },

  tools(body, at) {
    const out: ToolDefinition[] = [];
    for (const tool of listOf(body.tools)) {
      if (!isObject(tool) || typeof tool.name !== 'string') continue;
      // a namespace is a named group with a description of its own, then its tools
      out.push(toolDefinition(tool, at, tool.type === 'custom' ? tool.format : tool.parameters));
      if (tool.type === 'namespace')
        for (const inner of listOf(tool.tools)) if (isObject(inner) && typeof inner.name === 'string') out.push(toolDefinition(inner, at, inner.parameters));
    }
    return out;
  },

  params(body) {
    return { temperature: numberOf(body.temperature), topP: numberOf(body.top_p) };
  },

  answer(value) {
    if (!isObject(value)) return { id: undefined, model: undefined, choices: EMPTY };
    return { id: stringOf(value.id), model: stringOf(value.model), choices: [{ index: 0, finish: finishOf(value) }] };
  },

  answerMessages(value, at) {
    if (!isObject(value)) return EMPTY;
    const parts: Part[] = [];
    for (const item of listOf(value.output)) if (isObject(item)) modelItemParts(item, at, parts);
    return [{ role: 'assistant', parts }];
  },

  event(value) {
    if (!isObject(value) || !isObject(value.response)) return NO_EVENT;
    const response = value.response;
    const ended = value.type === 'response.completed' || value.type === 'response.incomplete';
    const finish = ended ? finishOf(response) : undefined;
    return {
      id: stringOf(response.id),
      model: stringOf(response.model),
      finish: finish === undefined ? EMPTY : [{ index: 0, reason: finish.reason, native: finish.native }],
    };
  },

  eventParts(value, at) {
    if (!isObject(value) || typeof value.type !== 'string') return NO_PARTS;
    const piece = eventDelta(value, value.type, at);
    if (piece !== undefined) return { deltas: [piece], toolCalls: EMPTY, repeated: EMPTY };
    const repeated = repeatedParts(value, value.type, at);
    return repeated.length === 0 ? NO_PARTS : { deltas: EMPTY, toolCalls: EMPTY, repeated };
  },

  finishHint: /"type"\s*:\s*"response\.(?:completed|incomplete)"/,
};

function eventDelta(event: Obj, type: string, at: Edits): EventContent['deltas'][number] | undefined {
  if (typeof event.delta !== 'string') return undefined;
  switch (type) {
    case 'response.output_text.delta':
      return textAt(event, 'delta', 'text', at);
    case 'response.refusal.delta':
      return textAt(event, 'delta', 'refusal', at);
    case 'response.reasoning_text.delta':
    case 'response.reasoning_summary_text.delta':
      return textAt(event, 'delta', 'reasoning', at);
    case 'response.function_call_arguments.delta':
    case 'response.custom_tool_call_input.delta':
      return argumentsDelta(event, 'delta', 0, numberOf(event.output_index) ?? 0, at);
    default:
      return undefined;
  }
}

/** What an event repeats whole of the text streamed before it. */
function repeatedParts(event: Obj, type: string, at: Edits): Array<TextPart | ToolCallPart> {
  const out: Array<TextPart | ToolCallPart> = [];
  switch (type) {
    case 'response.output_text.done':
    case 'response.reasoning_text.done':
    case 'response.reasoning_summary_text.done':
      if (typeof event.text === 'string') out.push(textAt(event, 'text', type === 'response.output_text.done' ? 'text' : 'reasoning', at));
      return out;
    case 'response.refusal.done':
      if (typeof event.refusal === 'string') out.push(textAt(event, 'refusal', 'refusal', at));
      return out;
    case 'response.content_part.added':
    case 'response.content_part.done':
    case 'response.reasoning_summary_part.added':
    case 'response.reasoning_summary_part.done':
      if (isObject(event.part)) keepText(contentPart(event.part, at), out);
      return out;
    case 'response.function_call_arguments.done':
      out.push(toolCall(event, 'arguments', undefined, nameOf(event), at));
      return out;
    case 'response.custom_tool_call_input.done':
      out.push(toolCall(event, 'input', undefined, nameOf(event), at, true));
      return out;
    case 'response.output_item.added':
    case 'response.output_item.done':
      if (isObject(event.item)) for (const part of modelItemParts(event.item, at, [])) keepText(part, out);
      return out;
    default:
      // lifecycle events (created, in_progress, completed, incomplete, failed) carry the response so far
      if (isObject(event.response))
        for (const item of listOf(event.response.output)) if (isObject(item)) for (const part of modelItemParts(item, at, [])) keepText(part, out);
      return out;
  }
}

function keepText(part: Part, out: Array<TextPart | ToolCallPart>): void {
  if (part.type !== 'opaque' && part.type !== 'tool_result') out.push(part);
}

/** Statuses that end a response. */
const ENDED: ReadonlySet<string> = new Set(['completed', 'incomplete', 'failed', 'cancelled']);

/**
 * A Response's finish: natively `incomplete_details.reason`, else its status; in common
 * terms `stop` (or `tool_calls` when it calls a function), `length` for `max_output_tokens`,
 * `content_filter`, or the native word (`failed`, `cancelled`).
 */
function finishOf(response: Obj): { reason: string; native: string } | undefined {
  const status = stringOf(response.status);
  if (status === undefined || !ENDED.has(status)) return undefined;
  const incomplete = isObject(response.incomplete_details) ? stringOf(response.incomplete_details.reason) : undefined;
  const native = incomplete ?? status;
  if (status === 'completed') return { reason: callsFunction(response.output) ? 'tool_calls' : 'stop', native };
  if (incomplete === 'max_output_tokens') return { reason: 'length', native };
  return { reason: native, native };
}

function callsFunction(output: unknown): boolean {
  for (const item of listOf(output)) if (isObject(item) && (item.type === 'function_call' || item.type === 'custom_tool_call')) return true;
  return false;
}

const NO_EVENT = Object.freeze({ id: undefined, model: undefined, finish: EMPTY });
const NO_PARTS = Object.freeze({ deltas: EMPTY, toolCalls: EMPTY, repeated: EMPTY });
