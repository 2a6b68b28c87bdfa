/**
 * Chat completions read format-free (the content view): messages with their text, refusal
 * and `reasoning_content` parts, tool calls (`function.arguments`, JSON text) and tool
 * messages; a completion's choices; a chunk's deltas. System and developer messages stay
 * messages: the protocol has no top-level instructions.
 * @see OpenAI API reference: Create chat completion, The chat completion chunk object
 */
import { type EventContent, type Message, type Part, type RequestContent, type ToolDefinition, isObject } from 'gw/plugin';
import { argumentsDelta, type ContentReader, type Edits, listOf, numberOf, stringOf, textAt, toolCall, toolResult } from 'gw/plugin/format';

type Obj = Record<string, unknown>;

const EMPTY: readonly never[] = Object.freeze([]);

const ROLES: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** The parts of a message's `content`: a string, or text, refusal and other parts. */
function contentParts(owner: Obj, at: Edits, parts: Part[]): void {
  const content = owner.content;
  if (typeof content === 'string') {
    parts.push(textAt(owner, 'content', 'text', at));
    return;
  }
  for (const part of listOf(content)) {
    if (!isObject(part)) continue;
    if (typeof part.text === 'string') parts.push(textAt(part, 'text', 'text', at));
    else if (part.type === 'refusal' && typeof part.refusal === 'string') parts.push(textAt(part, 'refusal', 'refusal', at));
    else parts.push({ type: 'opaque', kind: typeof part.type === 'string' ? part.type : 'unknown' });
  }
}

/** An assistant message's parts: reasoning, content, refusal, then its tool calls (and the legacy `function_call`). */
function assistantParts(message: Obj, at: Edits): Part[] {
  const parts: Part[] = [];
  if (typeof message.reasoning_content === 'string') parts.push(textAt(message, 'reasoning_content', 'reasoning', at));
  contentParts(message, at, parts);
  if (typeof message.refusal === 'string') parts.push(textAt(message, 'refusal', 'refusal', at));
  for (const call of listOf(message.tool_calls)) {
    if (!isObject(call) || !isObject(call.function)) continue;
    const fn = call.function;
    parts.push(toolCall(fn, 'arguments', typeof call.id === 'string' ? call.id : undefined, typeof fn.name === 'string' ? fn.name : '', at));
  }
  if (isObject(message.function_call)) {
    const fn = message.function_call;
    parts.push(toolCall(fn, 'arguments', undefined, typeof fn.name === 'string' ? fn.name : '', at));
  }
  return parts;
}

function readMessage(message: Obj, at: Edits): Message {
  const role = message.role;
  // a tool's answer (and the legacy `function` role's, named by the function)
  if (role === 'tool')
    return { role: 'tool', parts: [toolResult(message, 'content', typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined, at)] };
  if (role === 'function') return { role: 'tool', parts: [toolResult(message, 'content', typeof message.name === 'string' ? message.name : undefined, at)] };
  if (role === 'assistant') return { role: 'assistant', parts: assistantParts(message, at) };
  const parts: Part[] = [];
  contentParts(message, at, parts);
  return { role: typeof role === 'string' && ROLES.has(role) ? (role as Message['role']) : 'user', parts };
}

function toolDefinition(fn: Obj, at: Edits, parameters: unknown): ToolDefinition | undefined {
  if (typeof fn.name !== 'string') return undefined;
  return { name: fn.name, description: typeof fn.description === 'string' ? textAt(fn, 'description', 'text', at) : undefined, parameters };
}

/** Chat completions' content reader. */
export const chatContent: ContentReader = {
  instructions: () => EMPTY,

  messages(body, at) {
    const out: Message[] = [];
    for (const message of listOf(body.messages)) if (isObject(message)) out.push(readMessage(message, at));
    return out;
  },

  tools(body, at) {
    const out: ToolDefinition[] = [];
    for (const tool of listOf(body.tools)) {
      if (!isObject(tool)) continue;
      // function tools, and custom (free-form input) tools: `{type: "custom", custom: {name, description, format}}`
      const fn = isObject(tool.function) ? tool.function : isObject(tool.custom) ? tool.custom : undefined;
      const definition = fn && toolDefinition(fn, at, fn.parameters ?? fn.format);
      if (definition) out.push(definition);
    }
    for (const fn of listOf(body.functions)) {
      const definition = isObject(fn) ? toolDefinition(fn, at, fn.parameters) : undefined;
      if (definition) out.push(definition);
    }
    return out;
  },

  params(body) {
    return sampling(body);
  },

  answer(value) {
    if (!isObject(value)) return NO_ANSWER;
    const choices: Array<ReturnType<ContentReader['answer']>['choices'][number]> = [];
    const all = listOf(value.choices);
    for (let i = 0; i < all.length; i++) {
      const choice = all[i];
      if (!isObject(choice)) continue;
      const reason = stringOf(choice.finish_reason);
      choices.push({ index: numberOf(choice.index) ?? i, finish: reason === undefined ? undefined : { reason, native: reason } });
    }
    return { id: stringOf(value.id), model: stringOf(value.model), choices };
  },

  answerMessages(value, at) {
    const out: Message[] = [];
    if (!isObject(value)) return out;
    for (const choice of listOf(value.choices)) {
      if (isObject(choice)) out.push({ role: 'assistant', parts: isObject(choice.message) ? assistantParts(choice.message, at) : EMPTY });
    }
    return out;
  },

  event(value) {
    if (!isObject(value)) return NO_EVENT;
    let finish: Array<EventContent['finish'][number]> | undefined;
    const all = listOf(value.choices);
    for (let i = 0; i < all.length; i++) {
      const choice = all[i];
      const reason = isObject(choice) ? stringOf(choice.finish_reason) : undefined;
      if (reason !== undefined) (finish ??= []).push({ index: numberOf((choice as Obj).index) ?? i, reason, native: reason });
    }
    return { id: stringOf(value.id), model: stringOf(value.model), finish: finish ?? EMPTY };
  },

  eventParts(value, at) {
    if (!isObject(value)) return NO_PARTS;
    const deltas: Array<EventContent['deltas'][number]> = [];
    const all = listOf(value.choices);
    for (let i = 0; i < all.length; i++) {
      const choice = all[i];
      if (!isObject(choice) || !isObject(choice.delta)) continue;
      chunkDeltas(choice.delta, numberOf(choice.index) ?? i, at, deltas);
    }
    return deltas.length === 0 ? NO_PARTS : { deltas, toolCalls: EMPTY, repeated: EMPTY };
  },

  finishHint: /"finish_reason"\s*:\s*"/,
};

/** One choice's delta: reasoning, text, refusal, then tool-call argument pieces. */
function chunkDeltas(delta: Obj, index: number, at: Edits, out: Array<EventContent['deltas'][number]>): void {
  if (typeof delta.reasoning_content === 'string') out.push(textAt(delta, 'reasoning_content', 'reasoning', at, index));
  if (typeof delta.content === 'string') out.push(textAt(delta, 'content', 'text', at, index));
  if (typeof delta.refusal === 'string') out.push(textAt(delta, 'refusal', 'refusal', at, index));
  const calls = listOf(delta.tool_calls);
  for (let k = 0; k < calls.length; k++) {
    const call = calls[k];
    if (!isObject(call) || !isObject(call.function) || typeof call.function.arguments !== 'string') continue;
    const name = call.function.name;
    out.push(argumentsDelta(call.function, 'arguments', index, numberOf(call.index) ?? k, at, stringOf(call.id), typeof name === 'string' ? name : undefined));
  }
  const legacy = delta.function_call;
  if (isObject(legacy) && typeof legacy.arguments === 'string')
    out.push(argumentsDelta(legacy, 'arguments', index, 0, at, undefined, typeof legacy.name === 'string' ? legacy.name : undefined));
}

/** The sampling parameters a chat request sets (`top_k`: the extension of vLLM and other compatible servers). */
function sampling(body: Obj): RequestContent['params'] {
  const stop = body.stop;
  return {
    temperature: numberOf(body.temperature),
    topP: numberOf(body.top_p),
    topK: numberOf(body.top_k),
    seed: numberOf(body.seed),
    frequencyPenalty: numberOf(body.frequency_penalty),
    presencePenalty: numberOf(body.presence_penalty),
    stop: typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string') : undefined,
  };
}

const NO_ANSWER = Object.freeze({ id: undefined, model: undefined, choices: EMPTY });
const NO_EVENT = Object.freeze({ id: undefined, model: undefined, finish: EMPTY });
const NO_PARTS = Object.freeze({ deltas: EMPTY, toolCalls: EMPTY, repeated: EMPTY });
