/**
 * Gemini `contents` (and `systemInstruction`) → common-format messages.
 *
 * @see https://ai.google.dev/api/caching#Content
 * @see https://ai.google.dev/api/caching#Part
 * @see https://ai.google.dev/gemini-api/docs/function-calling
 */
import { badRequest, quoted } from '../../../core/error-codes.ts';
import type { ChatMessage, ContentPart, ToolCall } from '../../../core/format/chat.ts';
import { fileDataToPart, inlineDataToPart } from './convert-media.ts';
import type { Warnings } from '../../../core/format/warnings.ts';

type Obj = Record<string, unknown>;

/** Ids a client may choose that every vendor accepts as a tool-call id (Anthropic's rule is the strictest). */
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A function call not yet answered by a functionResponse. */
interface OpenCall {
  /** The `functionCall.id` the client sent, if any. */
  clientId: string | undefined;
  name: string;
  /** The common-format tool-call id. */
  id: string;
}

/**
 * `systemInstruction` (a Content whose `role` is ignored) → one system message, text parts
 * joined by a blank line (a string is what every common-format upstream accepts).
 * @throws GatewayError 400 for a part that is not text.
 */
export function convertSystemInstruction(si: unknown, w: Warnings): ChatMessage | undefined {
  if (si === undefined || si === null) return undefined;
  // a bare string is not the REST shape, but SDKs accept one and some clients send it
  if (typeof si === 'string') return si === '' ? undefined : { role: 'system', content: si };
  if (!isObj(si)) fail('must be a Content object', 'systemInstruction');
  const texts: string[] = [];
  partsOf(si, 'systemInstruction').forEach((p, j) => {
    const at = `systemInstruction.parts[${j}]`;
    if (typeof p.text !== 'string') fail('only text parts are supported here', at);
    if (p.thought === true) {
      w.add('thought parts dropped', at);
      return;
    }
    if (p.text !== '') texts.push(p.text);
  });
  return texts.length > 0 ? { role: 'system', content: texts.join('\n\n') } : undefined;
}

/**
 * Converts the turns in order. `user` (or no role) → a user message; `model` → an assistant
 * message; `functionResponse` parts → `tool` messages placed before the rest of their turn.
 *
 * Tool-call ids: the Gemini API has none, or an optional `functionCall.id`. A client id made
 * of `[A-Za-z0-9_-]` (≤ 64) and not used before in the request is kept; any other call gets
 * `call_<turn>_<part>`. A functionResponse answers the open call with the same `id` when it
 * has one, else the first open call with the same `name` (Gemini pairs by order).
 * @throws GatewayError 400 naming the field for a bad shape, an unknown role, a part with no
 *   common-format form, or a functionResponse that answers no earlier call.
 */
export function convertContents(contents: unknown, w: Warnings): ChatMessage[] {
  if (!Array.isArray(contents)) fail('must be an array of Content objects', 'contents');
  const out: ChatMessage[] = [];
  const open: OpenCall[] = [];
  const usedIds = new Set<string>();
  contents.forEach((c, i) => {
    const at = `contents[${i}]`;
    if (!isObj(c)) fail('must be a Content object', at);
    const role = c.role ?? 'user';
    if (role === 'model') out.push(...modelTurn(c, i, open, usedIds, w));
    // `function` is the role of functionResponse turns in older Gemini SDKs
    else if (role === 'user' || role === '' || role === 'function') out.push(...userTurn(c, at, open, w));
    else fail('role is not supported (use "user" or "model")', `${at}.role`, quoted(role));
  });
  return out;
}

function userTurn(c: Obj, at: string, open: OpenCall[], w: Warnings): ChatMessage[] {
  const tools: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  partsOf(c, at).forEach((p, j) => {
    const pa = `${at}.parts[${j}]`;
    noteExtras(p, pa, w);
    if (p.thought === true) {
      w.add('thought parts dropped', pa);
      return;
    }
    if (p.text !== undefined) {
      if (typeof p.text !== 'string') fail('text must be a string', `${pa}.text`);
      if (p.text !== '') parts.push({ type: 'text', text: p.text });
    } else if (p.inlineData !== undefined) {
      parts.push(inlineDataToPart(p.inlineData, `${pa}.inlineData`));
    } else if (p.fileData !== undefined) {
      parts.push(fileDataToPart(p.fileData, `${pa}.fileData`));
    } else if (p.functionResponse !== undefined) {
      tools.push(toolMessage(p.functionResponse, `${pa}.functionResponse`, open, parts, w));
    } else if (p.executableCode !== undefined || p.codeExecutionResult !== undefined) {
      w.add('code execution parts dropped: no common-format equivalent', pa);
    } else if (p.functionCall !== undefined) {
      fail('functionCall parts belong in a "model" turn', `${pa}.functionCall`);
    } else {
      fail('part has no data field gw can translate (text, inlineData, fileData, functionResponse)', pa);
    }
  });
  if (parts.length === 0) {
    if (tools.length === 0) w.add('turns without content dropped', at);
    return tools;
  }
  const first = parts[0]!;
  const content = parts.length === 1 && first.type === 'text' ? (first.text as string) : parts;
  return [...tools, { role: 'user', content }];
}

function modelTurn(c: Obj, i: number, open: OpenCall[], usedIds: Set<string>, w: Warnings): ChatMessage[] {
  const at = `contents[${i}]`;
  let text = '';
  const calls: ToolCall[] = [];
  partsOf(c, at).forEach((p, j) => {
    const pa = `${at}.parts[${j}]`;
    noteExtras(p, pa, w);
    if (p.thought === true) {
      w.add('thought parts dropped', pa);
      return;
    }
    if (p.text !== undefined) {
      if (typeof p.text !== 'string') fail('text must be a string', `${pa}.text`);
      // parts of one model turn are one stream of output, split wherever the stream was
      text += p.text;
    } else if (p.functionCall !== undefined) {
      calls.push(toolCall(p.functionCall, `${pa}.functionCall`, `call_${i}_${j}`, open, usedIds));
    } else if (p.inlineData !== undefined || p.fileData !== undefined) {
      w.add('media parts in model turns dropped: assistant messages carry text and tool calls only', pa);
    } else if (p.executableCode !== undefined || p.codeExecutionResult !== undefined) {
      w.add('code execution parts dropped: no common-format equivalent', pa);
    } else if (p.functionResponse !== undefined) {
      fail('functionResponse parts belong in a "user" turn', `${pa}.functionResponse`);
    } else {
      fail('part has no data field gw can translate (text, functionCall)', pa);
    }
  });
  if (text === '' && calls.length === 0) {
    w.add('turns without content dropped', at);
    return [];
  }
  const msg: ChatMessage = { role: 'assistant', content: text === '' ? null : text };
  if (calls.length > 0) msg.tool_calls = calls;
  return [msg];
}

function toolCall(fc: unknown, at: string, minted: string, open: OpenCall[], usedIds: Set<string>): ToolCall {
  if (!isObj(fc)) fail('must be an object', at);
  if (typeof fc.name !== 'string' || fc.name === '') fail('name must be a non-empty string', `${at}.name`);
  const args = fc.args ?? {};
  if (!isObj(args)) fail('args must be an object', `${at}.args`);
  const clientId = typeof fc.id === 'string' && fc.id !== '' ? fc.id : undefined;
  const id = clientId !== undefined && SAFE_ID.test(clientId) && !usedIds.has(clientId) ? clientId : minted;
  usedIds.add(id);
  open.push({ clientId, name: fc.name, id });
  return { id, type: 'function', function: { name: fc.name, arguments: JSON.stringify(args) } };
}

/**
 * A functionResponse → a tool message answering its call. Content, per Google's documented
 * convention for `response`: only an `output` key → that output; only an `error` key →
 * `Error: <error>` (the common format has no error flag, and the model must still learn the
 * call failed); anything else → the whole object as JSON. Images among the response's
 * `parts` move to the user message that follows (tool messages carry text only).
 */
function toolMessage(fr: unknown, at: string, open: OpenCall[], userParts: ContentPart[], w: Warnings): ChatMessage {
  if (!isObj(fr)) fail('must be an object', at);
  if (typeof fr.name !== 'string' || fr.name === '') fail('name must be a non-empty string', `${at}.name`);
  const response = fr.response ?? {};
  if (!isObj(response)) fail('response must be an object', `${at}.response`);
  const name = fr.name;
  let k = typeof fr.id === 'string' ? open.findIndex((c) => c.clientId === fr.id) : -1;
  if (k < 0) k = open.findIndex((c) => c.name === name);
  if (k < 0) fail('answers no earlier functionCall of its name', at, quoted(name));
  const call = open.splice(k, 1)[0]!;
  if (Array.isArray(fr.parts)) {
    fr.parts.forEach((p, j) => {
      const pa = `${at}.parts[${j}]`;
      if (isObj(p) && p.inlineData !== undefined) {
        userParts.push(inlineDataToPart(p.inlineData, `${pa}.inlineData`));
        w.add('functionResponse media moved to the following user message', pa);
      } else {
        w.add('functionResponse parts other than inlineData dropped', pa);
      }
    });
  }
  return { role: 'tool', tool_call_id: call.id, content: responseText(response) };
}

function responseText(response: Obj): string {
  const keys = Object.keys(response);
  if (keys.length === 1 && keys[0] === 'output') return asText(response.output);
  if (keys.length === 1 && keys[0] === 'error') return `Error: ${asText(response.error)}`;
  return JSON.stringify(response);
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
}

/** Part-level fields with no common-format meaning; `thoughtSignature` is dropped silently (opaque, Gemini-only). */
function noteExtras(p: Obj, at: string, w: Warnings): void {
  if (p.videoMetadata !== undefined) w.add('videoMetadata dropped: no common-format equivalent', at);
  if (p.mediaResolution !== undefined) w.add('mediaResolution dropped: no common-format equivalent', at);
}

function partsOf(c: Obj, at: string): Obj[] {
  if (!Array.isArray(c.parts)) fail('parts must be an array', `${at}.parts`);
  return c.parts.map((p, j) => {
    if (!isObj(p)) fail('must be a Part object', `${at}.parts[${j}]`);
    return p;
  });
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Throws a 400 naming `param`; `got` (the value at fault) is quoted to the client only. */
function fail(message: string, param: string, got?: string): never {
  throw badRequest(`${param}: ${message}`, param, got);
}
