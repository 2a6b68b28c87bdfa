/**
 * Gemini `contents` (and `systemInstruction`) → common-format messages. Follows the Gemini
 * API reference, "Content" and "Part", and the "Function calling" guide.
 */
import { type ChatMessage, type ContentPart, type ToolCall, isObject } from 'gw/plugin';
import { quoted, type Warnings } from 'gw/plugin/format';
import { failField } from '../../core/error-codes.ts';
import { fileDataToPart, inlineDataToPart } from './convert-media.ts';
import { OpenCalls } from './open-calls.ts';

type Obj = Record<string, unknown>;

/** Ids a client may choose that every vendor accepts as a tool-call id (Anthropic's rule is the strictest). */
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `systemInstruction` (`role` ignored) → one system message, parts joined by a blank line.
 * @throws GatewayError 400 for a part that is not text.
 */
export function convertSystemInstruction(si: unknown, w: Warnings): ChatMessage | undefined {
  if (si === undefined || si === null) return undefined;
  // a bare string is not the REST shape, but SDKs accept one and some clients send it
  if (typeof si === 'string') return si === '' ? undefined : { role: 'system', content: si };
  if (!isObject(si)) failField('systemInstruction', 'must be a Content object');
  const texts: string[] = [];
  partsOf(si, 'systemInstruction').forEach((p, j) => {
    const at = `systemInstruction.parts[${j}]`;
    if (typeof p.text !== 'string') failField(at, 'only text parts are supported here');
    if (p.thought === true) {
      w.add('thought parts dropped', at);
      return;
    }
    if (p.text !== '') texts.push(p.text);
  });
  return texts.length > 0 ? { role: 'system', content: texts.join('\n\n') } : undefined;
}

/**
 * Converts the turns in order, appending to `out` (returned); the README's table has the
 * rules. A functionResponse answers the open call with its `id`, else the first open call
 * of its `name` (Gemini pairs by order).
 * @throws GatewayError 400 naming the field for a bad shape, an unknown role, a part with no
 *   common-format form, or a functionResponse that answers no earlier call.
 */
export function convertContents(contents: unknown, w: Warnings, out: ChatMessage[] = []): ChatMessage[] {
  if (!Array.isArray(contents)) failField('contents', 'must be an array of Content objects');
  const open = new OpenCalls();
  const usedIds = new Set<string>();
  contents.forEach((c, i) => {
    if (!isObject(c)) failField(`contents[${i}]`, 'must be a Content object');
    const role = c.role ?? 'user';
    if (role === 'model') modelTurn(c, i, open, usedIds, w, out);
    // `function` is the role of functionResponse turns in older Gemini SDKs
    else if (role === 'user' || role === '' || role === 'function') userTurn(c, i, open, w, out);
    else failField(`contents[${i}].role`, 'role is not supported (use "user" or "model")', quoted(role));
  });
  return out;
}

/** `contents[i].parts[j]`: built where a warning or an error names a part, not for every part. */
function partPath(i: number, j: number): string {
  return `contents[${i}].parts[${j}]`;
}

/** Appends a user turn: its tool messages, then the user message with the rest (if any). */
function userTurn(c: Obj, i: number, open: OpenCalls, w: Warnings, out: ChatMessage[]): void {
  const before = out.length;
  const parts: ContentPart[] = [];
  const ps = partsOf(c, `contents[${i}]`);
  for (let j = 0; j < ps.length; j++) {
    const p = ps[j]!;
    noteExtras(p, i, j, w);
    if (p.thought === true) {
      w.add('thought parts dropped', partPath(i, j));
      continue;
    }
    if (p.text !== undefined) {
      if (typeof p.text !== 'string') failField(`${partPath(i, j)}.text`, 'text must be a string');
      if (p.text !== '') parts.push({ type: 'text', text: p.text });
    } else if (p.inlineData !== undefined) {
      parts.push(inlineDataToPart(p.inlineData, `${partPath(i, j)}.inlineData`));
    } else if (p.fileData !== undefined) {
      parts.push(fileDataToPart(p.fileData, `${partPath(i, j)}.fileData`));
    } else if (p.functionResponse !== undefined) {
      out.push(toolMessage(p.functionResponse, i, j, open, parts, w));
    } else if (p.executableCode !== undefined || p.codeExecutionResult !== undefined) {
      w.add('code execution parts dropped: no common-format equivalent', partPath(i, j));
    } else if (p.functionCall !== undefined) {
      failField(`${partPath(i, j)}.functionCall`, 'functionCall parts belong in a "model" turn');
    } else {
      failField(partPath(i, j), 'part has no data field gw can translate (text, inlineData, fileData, functionResponse)');
    }
  }
  if (parts.length === 0) {
    if (out.length === before) w.add('turns without content dropped', `contents[${i}]`);
    return;
  }
  const first = parts[0]!;
  const content = parts.length === 1 && first.type === 'text' ? (first.text as string) : parts;
  out.push({ role: 'user', content });
}

/** Appends a model turn as one assistant message (none when it has no content). */
function modelTurn(c: Obj, i: number, open: OpenCalls, usedIds: Set<string>, w: Warnings, out: ChatMessage[]): void {
  let text = '';
  const calls: ToolCall[] = [];
  const ps = partsOf(c, `contents[${i}]`);
  for (let j = 0; j < ps.length; j++) {
    const p = ps[j]!;
    noteExtras(p, i, j, w);
    if (p.thought === true) {
      w.add('thought parts dropped', partPath(i, j));
      continue;
    }
    if (p.text !== undefined) {
      if (typeof p.text !== 'string') failField(`${partPath(i, j)}.text`, 'text must be a string');
      // parts of one model turn are one stream of output, split wherever the stream was
      text += p.text;
    } else if (p.functionCall !== undefined) {
      calls.push(toolCall(p.functionCall, i, j, open, usedIds));
    } else if (p.inlineData !== undefined || p.fileData !== undefined) {
      w.add('media parts in model turns dropped: assistant messages carry text and tool calls only', partPath(i, j));
    } else if (p.executableCode !== undefined || p.codeExecutionResult !== undefined) {
      w.add('code execution parts dropped: no common-format equivalent', partPath(i, j));
    } else if (p.functionResponse !== undefined) {
      failField(`${partPath(i, j)}.functionResponse`, 'functionResponse parts belong in a "user" turn');
    } else {
      failField(partPath(i, j), 'part has no data field gw can translate (text, functionCall)');
    }
  }
  if (text === '' && calls.length === 0) {
    w.add('turns without content dropped', `contents[${i}]`);
    return;
  }
  const msg: ChatMessage = { role: 'assistant', content: text === '' ? null : text };
  if (calls.length > 0) msg.tool_calls = calls;
  out.push(msg);
}

/** `contents[i].parts[j].functionCall` → a tool call; the id is the client's when it is safe and unused, else `call_<i>_<j>`. */
function toolCall(fc: unknown, i: number, j: number, open: OpenCalls, usedIds: Set<string>): ToolCall {
  if (!isObject(fc)) failField(`${partPath(i, j)}.functionCall`, 'must be an object');
  if (typeof fc.name !== 'string' || fc.name === '') failField(`${partPath(i, j)}.functionCall.name`, 'name must be a non-empty string');
  const args = fc.args ?? {};
  if (!isObject(args)) failField(`${partPath(i, j)}.functionCall.args`, 'args must be an object');
  const clientId = typeof fc.id === 'string' && fc.id !== '' ? fc.id : undefined;
  const id = clientId !== undefined && SAFE_ID.test(clientId) && !usedIds.has(clientId) ? clientId : `call_${i}_${j}`;
  usedIds.add(id);
  open.add({ clientId, name: fc.name, id });
  return { id, type: 'function', function: { name: fc.name, arguments: JSON.stringify(args) } };
}

/**
 * A functionResponse → a tool message. Only `output` → that; only `error` → `Error: …` (no
 * error flag in the common format); else the JSON. Images move to the next user message.
 */
function toolMessage(fr: unknown, i: number, j: number, open: OpenCalls, userParts: ContentPart[], w: Warnings): ChatMessage {
  const at = () => `${partPath(i, j)}.functionResponse`;
  if (!isObject(fr)) failField(at(), 'must be an object');
  if (typeof fr.name !== 'string' || fr.name === '') failField(`${at()}.name`, 'name must be a non-empty string');
  const response = fr.response ?? {};
  if (!isObject(response)) failField(`${at()}.response`, 'response must be an object');
  const name = fr.name;
  const call = open.take(typeof fr.id === 'string' ? fr.id : undefined, name);
  if (call === undefined) failField(at(), 'answers no earlier functionCall of its name', quoted(name));
  if (Array.isArray(fr.parts)) {
    fr.parts.forEach((p, k) => {
      const pa = `${at()}.parts[${k}]`;
      if (isObject(p) && p.inlineData !== undefined) {
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
function noteExtras(p: Obj, i: number, j: number, w: Warnings): void {
  if (p.videoMetadata !== undefined) w.add('videoMetadata dropped: no common-format equivalent', partPath(i, j));
  if (p.mediaResolution !== undefined) w.add('mediaResolution dropped: no common-format equivalent', partPath(i, j));
}

/** `c.parts` (`at` is where `c` is: `contents[2]`), checked to be an array of objects (not copied). */
function partsOf(c: Obj, at: string): Obj[] {
  const parts = c.parts;
  if (!Array.isArray(parts)) failField(`${at}.parts`, 'parts must be an array');
  for (let j = 0; j < parts.length; j++) if (!isObject(parts[j])) failField(`${at}.parts[${j}]`, 'must be a Part object');
  return parts as Obj[];
}
