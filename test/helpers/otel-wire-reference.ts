/**
 * The otel extension's wire readers as they were before the content view (issue 39), kept as
 * the reference the view is held to: test/unit/content-read.test.ts checks that otel's GenAI
 * messages, response facts and sampling parameters, now built from the view, equal what these
 * read from every recorded fixture. Test code only: they branch on the format id by design.
 */
import { contentRoom, Room, StreamText } from '../../plugins/extensions/otel/content.ts';

type Obj = Record<string, unknown>;
/** One part of a message, as the conventions define them. */
export type Part = { type: string; content?: string; id?: string; name?: string; arguments?: string; result?: string };
/** One message, as the conventions define them. */
export interface Message {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const list = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);

/** A label of any type (the wire's), as the Room takes it. */
const label = (room: Room, v: unknown): string => room.label(String(v ?? ''));

function text(v: unknown, max: number, room: Room): string {
  return room.take(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''), max);
}

/** Content and whether some of it was left out or cut short by the attribute's bound. */
export interface Captured<T> {
  value: T;
  /** True when the attribute's bound left something out or cut a text (the span marks it cut). */
  cut: boolean;
}

/** `list` (oldest first) read newest first by `read` while the room lasts, answered oldest first. */
function newestFirst<T>(items: readonly unknown[], room: Room, read: (item: unknown, out: T[]) => void): T[] {
  const out: T[] = [];
  for (let i = items.length - 1; i >= 0 && room.has(); i--) {
    room.entry();
    read(items[i], out);
  }
  return out.reverse();
}

/**
 * The request's messages and system instructions, by client format: each attribute within
 * `contentRoom(max)` characters, the newest messages kept.
 */
export function referenceInput(format: string, body: Obj, max: number): { messages: Captured<Message[]>; system: Captured<Part[]> | undefined } {
  const room = new Room(contentRoom(max));
  const systemRoom = new Room(contentRoom(max));
  let messages: Message[] = [];
  let system: Part[] | undefined;
  switch (format) {
    case 'openai-chat':
      messages = newestFirst<Message>(list(body.messages), room, (m, out) => {
        const o = obj(m);
        if (!o) return;
        if (o.role === 'tool') {
          out.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: label(room, o.tool_call_id), result: text(o.content, max, room) }] });
          return;
        }
        const parts = partsOf(o.content, max, room);
        for (const c of list(o.tool_calls)) {
          if (!room.has()) break;
          room.entry();
          const f = obj(obj(c)?.function);
          parts.push({ type: 'tool_call', id: label(room, obj(c)?.id), name: label(room, f?.name), arguments: text(f?.arguments, max, room) });
        }
        out.push({ role: label(room, o.role), parts });
      });
      break;
    case 'anthropic-messages':
      if (body.system !== undefined) system = partsOf(body.system, max, systemRoom);
      messages = newestFirst<Message>(list(body.messages), room, (m, out) => {
        const o = obj(m);
        if (o) out.push({ role: label(room, o.role), parts: partsOf(o.content, max, room) });
      });
      break;
    case 'openai-responses':
      if (typeof body.instructions === 'string') system = [{ type: 'text', content: systemRoom.take(body.instructions, max) }];
      if (typeof body.input === 'string') messages = [{ role: 'user', parts: [{ type: 'text', content: room.take(body.input, max) }] }];
      else
        messages = newestFirst<Message>(list(body.input), room, (item, out) => {
          const o = obj(item);
          if (!o) return;
          if (o.type === 'function_call')
            out.push({
              role: 'assistant',
              parts: [{ type: 'tool_call', id: label(room, o.call_id), name: label(room, o.name), arguments: text(o.arguments, max, room) }],
            });
          else if (o.type === 'function_call_output')
            out.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: label(room, o.call_id), result: text(o.output, max, room) }] });
          else if (o.role !== undefined) out.push({ role: label(room, o.role), parts: partsOf(o.content, max, room) });
        });
      break;
    case 'gemini': {
      const si = obj(body.systemInstruction);
      if (si) system = partsOf(si.parts, max, systemRoom);
      messages = newestFirst<Message>(list(body.contents), room, (c, out) => {
        const o = obj(c);
        if (o) out.push({ role: o.role === 'model' ? 'assistant' : label(room, o.role ?? 'user'), parts: partsOf(o.parts, max, room) });
      });
      break;
    }
  }
  return { messages: { value: messages, cut: room.cut }, system: system === undefined ? undefined : { value: system, cut: systemRoom.cut } };
}

/** A whole answer's messages (one per choice or candidate), by client format, within `contentRoom(max)` characters. */
export function referenceOutput(format: string, body: unknown, max: number): Captured<Message[]> {
  const o = obj(body);
  const room = new Room(contentRoom(max));
  const out: Message[] = [];
  if (!o) return { value: out, cut: false };
  switch (format) {
    case 'openai-chat':
      for (const c of list(o.choices)) {
        if (!room.has()) break;
        room.entry();
        const m = obj(obj(c)?.message);
        const parts = partsOf(m?.content, max, room);
        for (const t of list(m?.tool_calls)) {
          if (!room.has()) break;
          room.entry();
          const f = obj(obj(t)?.function);
          parts.push({ type: 'tool_call', id: label(room, obj(t)?.id), name: label(room, f?.name), arguments: text(f?.arguments, max, room) });
        }
        out.push(withReason({ role: 'assistant', parts }, obj(c)?.finish_reason));
      }
      break;
    case 'anthropic-messages':
      out.push(withReason({ role: 'assistant', parts: partsOf(o.content, max, room) }, o.stop_reason));
      break;
    case 'openai-responses': {
      const parts: Part[] = [];
      for (const item of list(o.output)) {
        if (!room.has()) break;
        room.entry();
        const i = obj(item);
        if (i?.type === 'message') for (const p of partsOf(i.content, max, room)) parts.push(p);
        else if (i?.type === 'function_call')
          parts.push({ type: 'tool_call', id: label(room, i.call_id), name: label(room, i.name), arguments: text(i.arguments, max, room) });
      }
      out.push(withReason({ role: 'assistant', parts }, o.status));
      break;
    }
    case 'gemini':
      for (const c of list(o.candidates)) {
        if (!room.has()) break;
        room.entry();
        out.push(withReason({ role: 'assistant', parts: partsOf(obj(obj(c)?.content)?.parts, max, room) }, obj(c)?.finishReason));
      }
      break;
  }
  return { value: out, cut: room.cut };
}

/**
 * A stream's output text, collected from its chunks as they pass (first choice only), up
 * to `max` characters: what is past the limit is never kept.
 */
export class ReferenceStreamText extends StreamText {
  /** One chunk or event of `format`, as onChunk shows it. */
  chunk(format: string, v: unknown): void {
    if (this.cut) return;
    const o = obj(v);
    if (!o) return;
    let t: unknown;
    if (format === 'openai-chat') t = obj(obj(list(o.choices)[0])?.delta)?.content;
    else if (format === 'anthropic-messages') t = o.type === 'content_block_delta' ? obj(o.delta)?.text : undefined;
    else if (format === 'openai-responses') t = o.type === 'response.output_text.delta' ? o.delta : undefined;
    else if (format === 'gemini')
      for (const p of list(obj(obj(list(o.candidates)[0])?.content)?.parts)) if (typeof obj(p)?.text === 'string') this.add(obj(p)!.text as string);
    if (typeof t === 'string') this.add(t);
  }
}

function withReason(m: Message, reason: unknown): Message {
  if (typeof reason === 'string' && reason) m.finish_reason = reason;
  return m;
}

/**
 * A message's content as parts, while `room` lasts: a string is one text part; an array's
 * text blocks (`text`, `input_text`, `output_text`, Gemini's `{text}`) are text parts, tool
 * calls and results theirs, anything else (images, audio, files) a part named by its type only.
 */
function partsOf(content: unknown, max: number, room: Room): Part[] {
  if (typeof content === 'string') return [{ type: 'text', content: room.take(content, max) }];
  const parts: Part[] = [];
  for (const p of list(content)) {
    if (!room.has()) break;
    room.entry();
    const o = obj(p);
    if (!o) continue;
    if (typeof o.text === 'string') parts.push({ type: 'text', content: room.take(o.text, max) });
    else if (o.type === 'tool_use') parts.push({ type: 'tool_call', id: label(room, o.id), name: label(room, o.name), arguments: text(o.input, max, room) });
    else if (o.type === 'tool_result') parts.push({ type: 'tool_call_response', id: label(room, o.tool_use_id), result: text(o.content, max, room) });
    else if (obj(o.functionCall))
      parts.push({ type: 'tool_call', name: label(room, obj(o.functionCall)!.name), arguments: text(obj(o.functionCall)!.args, max, room) });
    else if (obj(o.functionResponse))
      parts.push({ type: 'tool_call_response', id: label(room, obj(o.functionResponse)!.name), result: text(obj(o.functionResponse)!.response, max, room) });
    else parts.push({ type: typeof o.type === 'string' ? label(room, o.type) : 'blob' });
  }
  return parts;
}

/** The sampling parameters as the old requestAttributes read them from the wire, by format (the conventions' attribute suffixes). */
export function referenceSampling(format: string, b: Obj): Record<string, unknown> {
  const gemini = format === 'gemini';
  const p = gemini ? (obj(b.generationConfig) ?? {}) : b;
  const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const stop = gemini ? p.stopSequences : format === 'anthropic-messages' ? p.stop_sequences : p.stop;
  const all = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string') : undefined;
  const out: Record<string, unknown> = {
    temperature: num(p.temperature),
    top_p: num(gemini ? p.topP : p.top_p),
    top_k: num(gemini ? p.topK : p.top_k),
    seed: num(p.seed),
    frequency_penalty: num(gemini ? p.frequencyPenalty : p.frequency_penalty),
    presence_penalty: num(gemini ? p.presencePenalty : p.presence_penalty),
    stop_sequences: all && all.length > 0 ? all : undefined,
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}

/** What the answer said about itself: `gen_ai.response.id`, `.model`, `.finish_reasons`. */
export class ReferenceFacts {
  id: string | undefined = undefined;
  model: string | undefined = undefined;
  finishReasons: string[] | undefined = undefined;

  /** Reads a whole JSON answer of `format`. */
  body(format: string, b: unknown): void {
    const o = obj(b);
    if (!o) return;
    if (format === 'gemini') {
      this.gemini(o);
      return;
    }
    this.id ??= str(o.id);
    this.model ??= str(o.model);
    if (format === 'openai-chat') for (const c of arr(o.choices)) this.reason(obj(c)?.finish_reason);
    else if (format === 'anthropic-messages') this.reason(o.stop_reason);
    else if (format === 'openai-responses') this.reason(responsesReason(o));
  }

  /**
   * Whether a stream chunk of `format` whose JSON text is `data` can tell anything not yet
   * known (undefined `data`: the chunk is an object already, reading it is free). Only the
   * first chunks (id, model) and those carrying a finish reason can; the others are left
   * unparsed.
   */
  wants(format: string, data: string | undefined): boolean {
    if (data === undefined || this.id === undefined || this.model === undefined) return true;
    const finish = FINISH[format];
    return finish === undefined || finish.test(data);
  }

  /** Reads one stream chunk or event of `format`, as onChunk shows it. */
  chunk(format: string, v: unknown): void {
    const o = obj(v);
    if (!o) return;
    switch (format) {
      case 'openai-chat':
        this.id ??= str(o.id);
        this.model ??= str(o.model);
        for (const c of arr(o.choices)) this.reason(obj(c)?.finish_reason);
        return;
      case 'anthropic-messages': {
        const m = obj(o.message);
        if (m) {
          this.id ??= str(m.id);
          this.model ??= str(m.model);
        }
        this.reason(obj(o.delta)?.stop_reason);
        return;
      }
      case 'openai-responses': {
        const r = obj(o.response);
        if (!r) return;
        this.id ??= str(r.id);
        this.model ??= str(r.model);
        if (o.type === 'response.completed' || o.type === 'response.incomplete') this.reason(responsesReason(r));
        return;
      }
      case 'gemini':
        this.gemini(o);
    }
  }

  private gemini(o: Obj): void {
    this.id ??= str(o.responseId);
    this.model ??= str(o.modelVersion);
    for (const c of arr(o.candidates)) this.reason(obj(c)?.finishReason);
  }

  private reason(v: unknown): void {
    if (typeof v !== 'string' || v === '') return;
    (this.finishReasons ??= []).push(v);
  }
}

/** What a chunk's text holds when it carries a finish reason, by format (ResponseFacts.wants). */
const FINISH: Readonly<Record<string, RegExp>> = {
  'openai-chat': /"finish_reason"\s*:\s*"/,
  'anthropic-messages': /"stop_reason"\s*:\s*"/,
  'openai-responses': /"type"\s*:\s*"response\.(?:completed|incomplete)"/,
  gemini: /"finishReason"\s*:\s*"/,
};

/** A Responses answer has no finish reason: its status, or why it is incomplete. */
function responsesReason(r: Obj): string | undefined {
  return str(obj(r.incomplete_details)?.reason) ?? str(r.status);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function arr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : EMPTY;
}

const EMPTY: readonly unknown[] = [];
