/**
 * Message content for `capture_content = true`, in the conventions' shapes
 * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`: JSON
 * strings on the span, as the conventions ask where structured attributes are not supported):
 * messages of `{role, parts: [{type: "text", content} | {type: "tool_call", id, name,
 * arguments} | {type: "tool_call_response", id, result}]}`. Every text is cut to
 * `max` characters (marked `…`), keeping the JSON whole; other parts are named by their type
 * only (media are never copied). Read from each client format's own request and answer.
 */

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

/** `s` cut to `max` characters, marked when cut. */
export function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}

function text(v: unknown, max: number): string {
  return cut(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''), max);
}

/** The request's messages and system instructions, by client format. */
export function inputContent(format: string, body: Obj, max: number): { messages: Message[]; system: Part[] | undefined } {
  const messages: Message[] = [];
  let system: Part[] | undefined;
  switch (format) {
    case 'openai-chat':
      for (const m of list(body.messages)) {
        const o = obj(m);
        if (!o) continue;
        const parts = partsOf(o.content, max);
        for (const c of list(o.tool_calls)) {
          const f = obj(obj(c)?.function);
          parts.push({ type: 'tool_call', id: String(obj(c)?.id ?? ''), name: String(f?.name ?? ''), arguments: text(f?.arguments, max) });
        }
        if (o.role === 'tool')
          messages.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: String(o.tool_call_id ?? ''), result: text(o.content, max) }] });
        else messages.push({ role: String(o.role), parts });
      }
      break;
    case 'anthropic-messages':
      if (body.system !== undefined) system = partsOf(body.system, max);
      for (const m of list(body.messages)) {
        const o = obj(m);
        if (o) messages.push({ role: String(o.role), parts: partsOf(o.content, max) });
      }
      break;
    case 'openai-responses':
      if (typeof body.instructions === 'string') system = [{ type: 'text', content: cut(body.instructions, max) }];
      if (typeof body.input === 'string') messages.push({ role: 'user', parts: [{ type: 'text', content: cut(body.input, max) }] });
      else
        for (const item of list(body.input)) {
          const o = obj(item);
          if (!o) continue;
          if (o.type === 'function_call')
            messages.push({
              role: 'assistant',
              parts: [{ type: 'tool_call', id: String(o.call_id ?? ''), name: String(o.name ?? ''), arguments: text(o.arguments, max) }],
            });
          else if (o.type === 'function_call_output')
            messages.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: String(o.call_id ?? ''), result: text(o.output, max) }] });
          else if (o.role !== undefined) messages.push({ role: String(o.role), parts: partsOf(o.content, max) });
        }
      break;
    case 'gemini': {
      const si = obj(body.systemInstruction);
      if (si) system = partsOf(si.parts, max);
      for (const c of list(body.contents)) {
        const o = obj(c);
        if (o) messages.push({ role: o.role === 'model' ? 'assistant' : String(o.role ?? 'user'), parts: partsOf(o.parts, max) });
      }
      break;
    }
  }
  return { messages, system };
}

/** A whole answer's messages (one per choice or candidate), by client format. */
export function outputContent(format: string, body: unknown, max: number): Message[] {
  const o = obj(body);
  if (!o) return [];
  const out: Message[] = [];
  switch (format) {
    case 'openai-chat':
      for (const c of list(o.choices)) {
        const m = obj(obj(c)?.message);
        const parts = partsOf(m?.content, max);
        for (const t of list(m?.tool_calls)) {
          const f = obj(obj(t)?.function);
          parts.push({ type: 'tool_call', id: String(obj(t)?.id ?? ''), name: String(f?.name ?? ''), arguments: text(f?.arguments, max) });
        }
        out.push(withReason({ role: 'assistant', parts }, obj(c)?.finish_reason));
      }
      break;
    case 'anthropic-messages':
      out.push(withReason({ role: 'assistant', parts: partsOf(o.content, max) }, o.stop_reason));
      break;
    case 'openai-responses': {
      const parts: Part[] = [];
      for (const item of list(o.output)) {
        const i = obj(item);
        if (i?.type === 'message') for (const p of partsOf(i.content, max)) parts.push(p);
        else if (i?.type === 'function_call')
          parts.push({ type: 'tool_call', id: String(i.call_id ?? ''), name: String(i.name ?? ''), arguments: text(i.arguments, max) });
      }
      out.push(withReason({ role: 'assistant', parts }, o.status));
      break;
    }
    case 'gemini':
      for (const c of list(o.candidates)) out.push(withReason({ role: 'assistant', parts: partsOf(obj(obj(c)?.content)?.parts, max) }, obj(c)?.finishReason));
      break;
  }
  return out;
}

/**
 * A stream's output text, collected from its chunks as they pass (first choice only), up
 * to `max` characters: what is past the limit is never kept.
 */
export class StreamText {
  private text = '';
  private full = false;
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** One chunk or event of `format`, as onChunk shows it. */
  chunk(format: string, v: unknown): void {
    if (this.full) return;
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

  /** The collected text as one assistant message. */
  message(finishReason: string | undefined): Message[] {
    return [withReason({ role: 'assistant', parts: [{ type: 'text', content: this.full ? `${this.text}…` : this.text }] }, finishReason)];
  }

  private add(t: string): void {
    const room = this.max - this.text.length;
    if (t.length > room) {
      this.text += t.slice(0, room);
      this.full = true;
    } else this.text += t;
  }
}

function withReason(m: Message, reason: unknown): Message {
  if (typeof reason === 'string' && reason) m.finish_reason = reason;
  return m;
}

/**
 * A message's content as parts: a string is one text part; an array's text blocks
 * (`text`, `input_text`, `output_text`, Gemini's `{text}`) are text parts, tool calls and
 * results theirs, anything else (images, audio, files) a part named by its type only.
 */
function partsOf(content: unknown, max: number): Part[] {
  if (typeof content === 'string') return [{ type: 'text', content: cut(content, max) }];
  const parts: Part[] = [];
  for (const p of list(content)) {
    const o = obj(p);
    if (!o) continue;
    if (typeof o.text === 'string') parts.push({ type: 'text', content: cut(o.text, max) });
    else if (o.type === 'tool_use') parts.push({ type: 'tool_call', id: String(o.id ?? ''), name: String(o.name ?? ''), arguments: text(o.input, max) });
    else if (o.type === 'tool_result') parts.push({ type: 'tool_call_response', id: String(o.tool_use_id ?? ''), result: text(o.content, max) });
    else if (obj(o.functionCall))
      parts.push({ type: 'tool_call', name: String(obj(o.functionCall)!.name ?? ''), arguments: text(obj(o.functionCall)!.args, max) });
    else if (obj(o.functionResponse))
      parts.push({ type: 'tool_call_response', id: String(obj(o.functionResponse)!.name ?? ''), result: text(obj(o.functionResponse)!.response, max) });
    else parts.push({ type: typeof o.type === 'string' ? o.type : 'blob' });
  }
  return parts;
}
