/**
 * The Gemini API read format-free (the content view): `systemInstruction`, `contents` with
 * text parts (`thought: true` is reasoning), `functionCall.args` and `functionResponse.response`
 * objects, `functionDeclarations`, `generationConfig`; a GenerateContentResponse's candidates,
 * which is also what every stream event is: each carries its new parts, a function call
 * whole, or (Vertex's streamed arguments) as `partialArgs` string pieces.
 * @see Gemini API reference: Generating content, Content
 */
import { type EventContent, type Message, type Part, type TextPart, type ToolCallPart, type ToolDefinition, isObject } from 'gw/plugin';
import { argumentsDelta, type ContentReader, type Edits, listOf, numberOf, stringOf, textAt, toolCall, toolResult } from 'gw/plugin/format';
import { fromGeminiFinishReason } from './map-finish-reason.ts';

type Obj = Record<string, unknown>;

const EMPTY: readonly never[] = Object.freeze([]);

/** The data fields of a part gw does not read, by the name it is reported as. */
const OPAQUE = ['inlineData', 'fileData', 'executableCode', 'codeExecutionResult'] as const;

/** One part: text (reasoning when `thought`), a function call or response, or opaque data. */
function partOf(part: Obj, at: Edits): Part {
  if (typeof part.text === 'string') return textAt(part, 'text', part.thought === true ? 'reasoning' : 'text', at);
  if (isObject(part.functionCall)) return callOf(part.functionCall, at);
  if (isObject(part.functionResponse)) {
    const response = part.functionResponse;
    const id = typeof response.id === 'string' ? response.id : typeof response.name === 'string' ? response.name : undefined;
    return toolResult(response, 'response', id, at);
  }
  for (const kind of OPAQUE) if (part[kind] !== undefined) return { type: 'opaque', kind };
  return { type: 'opaque', kind: 'unknown' };
}

function callOf(call: Obj, at: Edits): ToolCallPart {
  return toolCall(call, 'args', typeof call.id === 'string' ? call.id : undefined, typeof call.name === 'string' ? call.name : '', at);
}

/** A call whose arguments arrive over several events (Vertex's `partialArgs`): opened with its name and `willContinue`, ended by a part without it. */
function streamed(call: Obj): boolean {
  return call.willContinue === true || call.partialArgs !== undefined || call.name === undefined;
}

function partsOf(content: unknown, at: Edits): Part[] {
  const parts: Part[] = [];
  if (isObject(content)) for (const part of listOf(content.parts)) if (isObject(part)) parts.push(partOf(part, at));
  return parts;
}

/** A candidate's finish: `STOP` with a function call of this candidate reads as `tool_calls`. */
function finishOf(candidate: Obj): { reason: string; native: string } | undefined {
  const native = stringOf(candidate.finishReason);
  if (native === undefined) return undefined;
  let calls = false;
  if (isObject(candidate.content)) for (const part of listOf(candidate.content.parts)) if (isObject(part) && isObject(part.functionCall)) calls = true;
  return { reason: fromGeminiFinishReason(native, calls), native };
}

/** The Gemini API's content reader. */
export const geminiContent: ContentReader = {
  instructions(body, at) {
    // the API takes a bare string for a text-only system instruction
    if (typeof body.systemInstruction === 'string') return [textAt(body, 'systemInstruction', 'text', at)];
    const out: TextPart[] = [];
    if (isObject(body.systemInstruction))
      for (const part of listOf(body.systemInstruction.parts)) if (isObject(part) && typeof part.text === 'string') out.push(textAt(part, 'text', 'text', at));
    return out;
  },

  messages(body, at) {
    const out: Message[] = [];
    for (const content of listOf(body.contents)) {
      if (!isObject(content)) continue;
      out.push({ role: content.role === 'model' ? 'assistant' : content.role === 'function' ? 'tool' : 'user', parts: partsOf(content, at) });
    }
    return out;
  },

  tools(body, at) {
    const out: ToolDefinition[] = [];
    for (const tool of listOf(body.tools)) {
      if (!isObject(tool)) continue;
      for (const fn of listOf(tool.functionDeclarations)) {
        if (!isObject(fn) || typeof fn.name !== 'string') continue;
        const description = typeof fn.description === 'string' ? textAt(fn, 'description', 'text', at) : undefined;
        out.push({ name: fn.name, description, parameters: fn.parametersJsonSchema ?? fn.parameters });
      }
    }
    return out;
  },

  params(body) {
    const config = isObject(body.generationConfig) ? body.generationConfig : EMPTY_CONFIG;
    return {
      temperature: numberOf(config.temperature),
      topP: numberOf(config.topP),
      topK: numberOf(config.topK),
      seed: numberOf(config.seed),
      frequencyPenalty: numberOf(config.frequencyPenalty),
      presencePenalty: numberOf(config.presencePenalty),
      stop: Array.isArray(config.stopSequences) ? config.stopSequences.filter((s): s is string => typeof s === 'string') : undefined,
    };
  },

  answer(value) {
    if (!isObject(value)) return { id: undefined, model: undefined, choices: EMPTY };
    const choices: Array<ReturnType<ContentReader['answer']>['choices'][number]> = [];
    const candidates = listOf(value.candidates);
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i];
      if (isObject(candidate)) choices.push({ index: numberOf(candidate.index) ?? i, finish: finishOf(candidate) });
    }
    return { id: stringOf(value.responseId), model: stringOf(value.modelVersion), choices };
  },

  answerMessages(value, at) {
    const out: Message[] = [];
    if (isObject(value))
      for (const candidate of listOf(value.candidates)) if (isObject(candidate)) out.push({ role: 'assistant', parts: partsOf(candidate.content, at) });
    return out;
  },

  event(value) {
    if (!isObject(value)) return { id: undefined, model: undefined, finish: EMPTY };
    let finish: Array<EventContent['finish'][number]> | undefined;
    const candidates = listOf(value.candidates);
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i];
      const ended = isObject(candidate) ? finishOf(candidate) : undefined;
      if (ended !== undefined) (finish ??= []).push({ index: numberOf((candidate as Obj).index) ?? i, reason: ended.reason, native: ended.native });
    }
    return { id: stringOf(value.responseId), model: stringOf(value.modelVersion), finish: finish ?? EMPTY };
  },

  eventParts(value, at) {
    if (!isObject(value)) return NO_PARTS;
    let deltas: Array<EventContent['deltas'][number]> | undefined;
    let toolCalls: ToolCallPart[] | undefined;
    const candidates = listOf(value.candidates);
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i];
      if (!isObject(candidate) || !isObject(candidate.content)) continue;
      const index = numberOf(candidate.index) ?? i;
      const parts = listOf(candidate.content.parts);
      for (let k = 0; k < parts.length; k++) {
        const part = parts[k];
        if (!isObject(part)) continue;
        if (typeof part.text === 'string') (deltas ??= []).push(textAt(part, 'text', part.thought === true ? 'reasoning' : 'text', at, index));
        else if (!isObject(part.functionCall)) continue;
        else if (!streamed(part.functionCall)) (toolCalls ??= []).push(callOf(part.functionCall, at));
        else {
          const call = part.functionCall;
          const name = typeof call.name === 'string' ? call.name : undefined;
          for (const arg of listOf(call.partialArgs))
            if (isObject(arg) && typeof arg.stringValue === 'string') (deltas ??= []).push(argumentsDelta(arg, 'stringValue', index, k, at, undefined, name));
        }
      }
    }
    return deltas === undefined && toolCalls === undefined ? NO_PARTS : { deltas: deltas ?? EMPTY, toolCalls: toolCalls ?? EMPTY, repeated: EMPTY };
  },

  finishHint: /"finishReason"\s*:\s*"/,
};

const EMPTY_CONFIG: Obj = Object.freeze({});
const NO_PARTS = Object.freeze({ deltas: EMPTY, toolCalls: EMPTY, repeated: EMPTY });
