/**
 * Common-format `messages` → Gemini `systemInstruction` + `contents`.
 * @see Gemini API reference: Generating content › Request body; Gemini API docs: Function calling, Thought signatures
 */
import { badRequest, type ChatMessage, type ContentPart, type ToolCall } from 'gw/plugin';
import { quoted } from 'gw/plugin/format';
import { fileToPart, imageUrlToPart, inputAudioToPart } from './convert-media-part.ts';
import { parseToolCallId } from './tool-call-ids.ts';
import type { Content, Part } from './types.ts';

/** Google's stand-in signature for a function call Gemini did not produce (Gemini's "Thought signatures"). */
export const FOREIGN_CALL_SIGNATURE = 'skip_thought_signature_validator';

export interface ConvertedMessages {
  systemInstruction: Content | undefined;
  contents: Content[];
}

/**
 * Converts messages; consecutive turns of one role merge (Gemini expects alternation, and a
 * step's function responses belong in one `user` turn).
 * @throws GatewayError 400 naming the field for what cannot be sent.
 */
export function convertMessages(messages: ChatMessage[], warnings: string[]): ConvertedMessages {
  const systemParts: Part[] = [];
  const contents: Content[] = [];
  const callNames = new Map<string, string>();
  // first functionCall parts whose id gw did not mint: candidates for FOREIGN_CALL_SIGNATURE
  const foreignCalls = new Map<Part, string>();
  let seenConversation = false;

  const push = (role: 'user' | 'model', parts: Part[], i: number): void => {
    if (parts.length === 0) {
      warnings.push(`messages[${i}] has no content Gemini accepts; skipped`);
      return;
    }
    const last = contents[contents.length - 1];
    // every parts array here is this module's own: a merge appends in place, part by part
    if (last?.role === role) for (let k = 0; k < parts.length; k++) last.parts.push(parts[k]!);
    else contents.push({ role, parts });
  };

  messages.forEach((msg, i) => {
    const at = `messages[${i}]`;
    if (Array.isArray(msg.content)) cacheMarkersDropped(msg.content, at, warnings);
    switch (msg.role) {
      case 'system':
      case 'developer':
        if (seenConversation) warnings.push(`${at}: ${msg.role} message after the conversation started; hoisted into systemInstruction`);
        textParts(msg.content, at, systemParts);
        return;
      case 'user':
        seenConversation = true;
        push('user', userParts(msg.content, at, warnings), i);
        return;
      case 'assistant': {
        seenConversation = true;
        const parts = assistantParts(msg, at, warnings);
        if (Array.isArray(msg.tool_calls)) {
          const calls = parts.filter((p) => p.functionCall !== undefined);
          msg.tool_calls.forEach((tc, j) => {
            callNames.set(tc.id, tc.function.name);
            if (j === 0 && !parseToolCallId(tc.id).minted) foreignCalls.set(calls[0]!, `${at}.tool_calls[0]`);
          });
        }
        push('model', parts, i);
        return;
      }
      case 'tool': {
        seenConversation = true;
        const id = msg.tool_call_id;
        const name = typeof id === 'string' ? callNames.get(id) : undefined;
        if (name === undefined) {
          throw badRequest(`${at}.tool_call_id matches no earlier assistant tool_calls[].id`, `${at}.tool_call_id`, quoted(id));
        }
        push('user', [{ functionResponse: { name, response: toolResponse(joinText(msg.content, at)) } }], i);
        return;
      }
      case 'function': {
        // legacy function-calling result: the name is on the message itself
        seenConversation = true;
        if (typeof msg.name !== 'string' || msg.name === '') throw badRequest(`${at}.name is required for role "function"`, `${at}.name`);
        push('user', [{ functionResponse: { name: msg.name, response: toolResponse(joinText(msg.content, at)) } }], i);
        return;
      }
      default:
        throw badRequest(`${at}.role is not supported`, `${at}.role`, quoted(msg.role));
    }
  });

  attachForeignSignatures(contents, foreignCalls, warnings);
  if (contents.length === 0) throw badRequest('messages must contain at least one user, assistant or tool message', 'messages');
  return { systemInstruction: systemParts.length > 0 ? { parts: systemParts } : undefined, contents };
}

/** The first call of an unsigned model turn gets the stand-in, unless gw minted its id (Gemini sent none, none is owed). */
function attachForeignSignatures(contents: Content[], foreignCalls: Map<Part, string>, warnings: string[]): void {
  for (const turn of contents) {
    if (turn.role !== 'model') continue;
    const calls = turn.parts.filter((p) => p.functionCall !== undefined);
    const first = calls[0];
    if (first === undefined || calls.some((p) => p.thoughtSignature !== undefined)) continue;
    const where = foreignCalls.get(first);
    if (where === undefined) continue;
    first.thoughtSignature = FOREIGN_CALL_SIGNATURE;
    warnings.push(`${where}: id not minted by gw, no thought signature; sent Gemini's validator-skip signature`);
  }
}

/** The text parts of `content`, appended to `parts` (a new array when not given). */
/** Anthropic-style `cache_control` on chat content parts (LiteLLM's convention): Gemini has no per-part marker. */
function cacheMarkersDropped(content: ContentPart[], at: string, warnings: string[]): void {
  for (let j = 0; j < content.length; j++) {
    if (content[j]?.cache_control !== undefined)
      warnings.push(`${at}.content[${j}].cache_control dropped: Gemini caches by cachedContent resources, not per-part markers`);
  }
}

function textParts(content: ChatMessage['content'], at: string, parts: Part[] = []): Part[] {
  if (content === null || content === undefined) return parts;
  if (typeof content === 'string') {
    if (content !== '') parts.push({ text: content });
    return parts;
  }
  if (!Array.isArray(content)) throw badRequest(`${at}.content must be a string or an array of parts`, `${at}.content`);
  content.forEach((p, j) => {
    if (p.type !== 'text' || typeof p.text !== 'string') {
      throw badRequest(`${at}.content[${j}]: only text parts are allowed here`, `${at}.content[${j}].type`, quoted(p.type));
    }
    if (p.text !== '') parts.push({ text: p.text });
  });
  return parts;
}

function userParts(content: ChatMessage['content'], at: string, warnings: string[]): Part[] {
  if (!Array.isArray(content)) return textParts(content, at);
  const parts: Part[] = [];
  content.forEach((p: ContentPart, j) => {
    const param = `${at}.content[${j}]`;
    switch (p.type) {
      case 'text':
        if (typeof p.text !== 'string') throw badRequest(`${param}.text must be a string`, `${param}.text`);
        if (p.text !== '') parts.push({ text: p.text });
        return;
      case 'image_url':
        parts.push(imageUrlToPart((p.image_url as { url?: unknown } | undefined)?.url, `${param}.image_url.url`, warnings));
        return;
      case 'input_audio':
        parts.push(inputAudioToPart(p.input_audio, `${param}.input_audio`));
        return;
      case 'file':
        parts.push(fileToPart(p.file, `${param}.file`));
        return;
      default:
        throw badRequest(`${param}.type is not supported for Gemini`, `${param}.type`, quoted(p.type));
    }
  });
  return parts;
}

function assistantParts(msg: ChatMessage, at: string, warnings: string[]): Part[] {
  const parts: Part[] = [];
  if (Array.isArray(msg.content)) {
    msg.content.forEach((p, j) => {
      // a refusal is what the model said; Gemini has no refusal part, so it stays as text
      const text = p.type === 'text' ? p.text : p.type === 'refusal' ? p.refusal : undefined;
      if (typeof text !== 'string') throw badRequest(`${at}.content[${j}]: assistant parts must be text or refusal`, `${at}.content[${j}].type`);
      if (text !== '') parts.push({ text });
    });
  } else {
    textParts(msg.content, at, parts);
  }
  if (typeof msg.reasoning_content === 'string' && msg.reasoning_content !== '') {
    warnings.push(`${at}.reasoning_content dropped: Gemini accepts thoughts back only with their signature`);
  }
  if (Array.isArray(msg.tool_calls)) {
    for (let j = 0; j < msg.tool_calls.length; j++) parts.push(functionCallPart(msg.tool_calls[j]!, `${at}.tool_calls[${j}]`));
  }
  const legacy = msg.function_call as { name?: unknown; arguments?: unknown } | undefined | null;
  if (legacy != null) {
    if (typeof legacy.name !== 'string') throw badRequest(`${at}.function_call.name must be a string`, `${at}.function_call.name`);
    parts.push({ functionCall: { name: legacy.name, args: parseArguments(legacy.arguments, `${at}.function_call.arguments`) } });
  }
  return parts;
}

function functionCallPart(tc: ToolCall, param: string): Part {
  if (typeof tc?.id !== 'string') throw badRequest(`${param}.id must be a string`, `${param}.id`);
  if (tc.type !== undefined && tc.type !== 'function') throw badRequest(`${param}.type is not supported`, `${param}.type`, quoted(tc.type));
  if (typeof tc.function?.name !== 'string') throw badRequest(`${param}.function.name must be a string`, `${param}.function.name`);
  const part: Part = { functionCall: { name: tc.function.name, args: parseArguments(tc.function.arguments, `${param}.function.arguments`) } };
  const { signature } = parseToolCallId(tc.id);
  if (signature !== undefined) part.thoughtSignature = signature;
  return part;
}

/** Gemini wants `args` as an object; clients send a JSON string ("" for no arguments). */
function parseArguments(raw: unknown, param: string): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw !== 'string') throw badRequest(`${param} must be a JSON string`, param);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest(`${param} is not valid JSON`, param);
  }
  if (!isPlainObject(parsed)) throw badRequest(`${param} must encode a JSON object`, param);
  return parsed;
}

/** A tool result that is a JSON object is sent as is; anything else is wrapped as `{result}`. */
function toolResponse(content: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(content);
    if (isPlainObject(parsed)) return parsed;
  } catch {
    // plain text result
  }
  return { result: content };
}

function joinText(content: ChatMessage['content'], at: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw badRequest(`${at}.content must be a string or an array of text parts`, `${at}.content`);
  return content
    .map((p, j) => {
      if (p.type !== 'text' || typeof p.text !== 'string') throw badRequest(`${at}.content[${j}]: tool results must be text`, `${at}.content[${j}].type`);
      return p.text;
    })
    .join('');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
