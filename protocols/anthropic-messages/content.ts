/**
 * Messages read format-free (the content view): `system`, content blocks (text, `thinking`
 * as reasoning, `tool_use` input objects, `tool_result` content, text documents), a message
 * answer, and stream events (`text_delta`, `thinking_delta`, `input_json_delta`, a
 * `content_block_start`'s block, `message_delta`'s stop reason).
 * @see Anthropic API: Messages; Anthropic docs: Streaming Messages
 */
import { type EventContent, type Message, type Part, type TextPart, type ToolDefinition, isObject } from 'gw/plugin';
import { argumentsDelta, type ContentReader, type Edits, listOf, numberOf, stringOf, textAt, toolCall, toolResult } from 'gw/plugin/format';
import { fromMessagesStopReason } from './map-stop-reason.ts';

type Obj = Record<string, unknown>;

const EMPTY: readonly never[] = Object.freeze([]);
const name = (block: Obj): string => (typeof block.name === 'string' ? block.name : '');

/** Blocks that call a tool with an `input` object: the client's tools, Anthropic's server tools, an MCP server's. */
const CALLS: ReadonlySet<string> = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

/** One content block as a part. */
function blockPart(block: Obj, at: Edits): Part {
  const type = block.type;
  if (type === 'thinking' && typeof block.thinking === 'string') return textAt(block, 'thinking', 'reasoning', at);
  if (typeof block.text === 'string') return textAt(block, 'text', 'text', at);
  if (typeof type === 'string' && CALLS.has(type)) return toolCall(block, 'input', typeof block.id === 'string' ? block.id : undefined, name(block), at);
  if (type === 'tool_result' || type === 'mcp_tool_result')
    return toolResult(block, 'content', typeof block.tool_use_id === 'string' ? block.tool_use_id : undefined, at);
  // a plain-text document is the client's text (a base64 PDF or a URL is not)
  if (type === 'document' && isObject(block.source) && block.source.type === 'text' && typeof block.source.data === 'string')
    return textAt(block.source, 'data', 'text', at);
  return { type: 'opaque', kind: typeof type === 'string' ? type : 'unknown' };
}

/** A string (one text part) or content blocks. */
function contentParts(owner: Obj, key: string, at: Edits): Part[] {
  const content = owner[key];
  if (typeof content === 'string') return [textAt(owner, key, 'text', at)];
  const parts: Part[] = [];
  for (const block of listOf(content)) if (isObject(block)) parts.push(blockPart(block, at));
  return parts;
}

/** Messages' content reader. */
export const messagesContent: ContentReader = {
  instructions(body, at) {
    if (typeof body.system === 'string') return [textAt(body, 'system', 'text', at)];
    const out: TextPart[] = [];
    for (const block of listOf(body.system)) if (isObject(block) && typeof block.text === 'string') out.push(textAt(block, 'text', 'text', at));
    return out;
  },

  messages(body, at) {
    const out: Message[] = [];
    for (const message of listOf(body.messages)) {
      if (!isObject(message)) continue;
      out.push({ role: message.role === 'assistant' ? 'assistant' : 'user', parts: contentParts(message, 'content', at) });
    }
    return out;
  },

  tools(body, at) {
    const out: ToolDefinition[] = [];
    for (const tool of listOf(body.tools)) {
      if (!isObject(tool) || typeof tool.name !== 'string') continue;
      out.push({
        name: tool.name,
        description: typeof tool.description === 'string' ? textAt(tool, 'description', 'text', at) : undefined,
        parameters: tool.input_schema,
      });
    }
    return out;
  },

  params(body) {
    return {
      temperature: numberOf(body.temperature),
      topP: numberOf(body.top_p),
      topK: numberOf(body.top_k),
      stop: Array.isArray(body.stop_sequences) ? body.stop_sequences.filter((s): s is string => typeof s === 'string') : undefined,
    };
  },

  answer(value) {
    if (!isObject(value)) return { id: undefined, model: undefined, choices: EMPTY };
    return { id: stringOf(value.id), model: stringOf(value.model), choices: [{ index: 0, finish: finishOf(value.stop_reason) }] };
  },

  answerMessages(value, at) {
    return isObject(value) ? [{ role: 'assistant', parts: contentParts(value, 'content', at) }] : EMPTY;
  },

  event(value) {
    if (!isObject(value)) return NO_EVENT;
    if (value.type === 'message_start' && isObject(value.message))
      return { id: stringOf(value.message.id), model: stringOf(value.message.model), finish: EMPTY };
    if (value.type !== 'message_delta' || !isObject(value.delta)) return NO_EVENT;
    const finish = finishOf(value.delta.stop_reason);
    return { id: undefined, model: undefined, finish: finish === undefined ? EMPTY : [{ index: 0, reason: finish.reason, native: finish.native }] };
  },

  eventParts(value, at) {
    if (!isObject(value)) return NO_PARTS;
    switch (value.type) {
      case 'content_block_delta':
        return isObject(value.delta) ? blockDelta(value.delta, numberOf(value.index) ?? 0, at) : NO_PARTS;
      case 'content_block_start':
        return isObject(value.content_block) ? blockStart(value.content_block, at) : NO_PARTS;
      case 'message_start': {
        // the message so far: empty as Anthropic sends it; whatever a compatible server put there is repeated text
        const content = isObject(value.message) ? listOf(value.message.content) : EMPTY;
        if (content.length === 0) return NO_PARTS;
        const repeated: Array<EventContent['repeated'][number]> = [];
        for (const part of contentParts(value.message as Obj, 'content', at)) if (part.type !== 'opaque' && part.type !== 'tool_result') repeated.push(part);
        return { deltas: EMPTY, toolCalls: EMPTY, repeated };
      }
      default:
        return NO_PARTS;
    }
  },

  finishHint: /"stop_reason"\s*:\s*"/,
};

/** A `content_block_delta`'s piece of block `block`. */
function blockDelta(delta: Obj, block: number, at: Edits): Pick<EventContent, 'deltas' | 'toolCalls' | 'repeated'> {
  let piece: EventContent['deltas'][number] | undefined;
  if (delta.type === 'text_delta' && typeof delta.text === 'string') piece = textAt(delta, 'text', 'text', at);
  else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') piece = textAt(delta, 'thinking', 'reasoning', at);
  else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') piece = argumentsDelta(delta, 'partial_json', 0, block, at);
  return piece === undefined ? NO_PARTS : { deltas: [piece], toolCalls: EMPTY, repeated: EMPTY };
}

/** A `content_block_start`: a text or thinking block's first text (empty as Anthropic sends it), or a tool call as announced. */
function blockStart(block: Obj, at: Edits): Pick<EventContent, 'deltas' | 'toolCalls' | 'repeated'> {
  if (typeof block.type === 'string' && CALLS.has(block.type))
    return { deltas: EMPTY, toolCalls: [toolCall(block, 'input', typeof block.id === 'string' ? block.id : undefined, name(block), at)], repeated: EMPTY };
  if (block.type === 'text' && typeof block.text === 'string') return { deltas: [textAt(block, 'text', 'text', at)], toolCalls: EMPTY, repeated: EMPTY };
  if (block.type === 'thinking' && typeof block.thinking === 'string')
    return { deltas: [textAt(block, 'thinking', 'reasoning', at)], toolCalls: EMPTY, repeated: EMPTY };
  return NO_PARTS;
}

function finishOf(stopReason: unknown): { reason: string; native: string } | undefined {
  const native = stringOf(stopReason);
  return native === undefined ? undefined : { reason: fromMessagesStopReason(native) ?? 'stop', native };
}

const NO_EVENT = Object.freeze({ id: undefined, model: undefined, finish: EMPTY });
const NO_PARTS = Object.freeze({ deltas: EMPTY, toolCalls: EMPTY, repeated: EMPTY });
