/**
 * Message content for `capture_content = true`, in the GenAI conventions' shapes
 * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`: JSON text):
 * messages of text, reasoning, tool call and tool call response parts, built from the content
 * view (any format that has a reader). Every text is cut to `max` characters; media are named
 * by their kind only. A whole attribute holds at most `contentRoom(max)` characters, the newest
 * messages kept first: what did not fit is left out and the attribute is marked cut.
 */
import { type AnswerContent, cutText, type EventContent, type Part as ViewPart, type RequestContent } from 'gw/plugin';

/** One part of a message, as the conventions define them. */
export type Part = { type: string; content?: string; id?: string; name?: string; arguments?: string; result?: string };
/** One message, as the conventions define them. */
export interface Message {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

/** A role, a part's type, a tool call's id or name: cut to this many characters. */
const LABEL_MAX_CHARS = 256;
/** What one content attribute holds at least, characters (more when `content_max_chars` is larger). */
const ROOM_MIN_CHARS = 262_144;
/** What a message or a part costs of the room besides its texts: about the JSON it adds. */
const ENTRY_CHARS = 32;

/** The characters one content attribute holds at most (about), for texts of at most `max`. */
export function contentRoom(max: number): number {
  return Math.max(max, ROOM_MIN_CHARS);
}

/** What is left of one attribute's characters as messages, parts and texts are added; `cut` once something did not fit. */
export class Room {
  left: number;
  cut = false;

  constructor(chars: number) {
    this.left = chars;
  }

  /** `s` cut to `max` and to what is left, which it then uses up. */
  take(s: string, max: number): string {
    const kept = cutText(s, Math.min(max, Math.max(this.left, 1)));
    if (kept !== s) this.cut = true;
    this.left -= kept.length;
    return kept;
  }

  /** A label (role, id, name, type) cut to LABEL_MAX_CHARS, and what it uses up. */
  label(v: string): string {
    const kept = cutText(v, LABEL_MAX_CHARS);
    this.left -= kept.length;
    return kept;
  }

  /** One more message or part: what its JSON adds besides its texts. */
  entry(): void {
    this.left -= ENTRY_CHARS;
  }

  /** False (and marked cut) once the attribute is full: the caller adds nothing more. */
  has(): boolean {
    if (this.left > 0) return true;
    this.cut = true;
    return false;
  }
}

/** Content and whether the attribute's bound left some of it out or cut a text. */
export interface Captured<T> {
  value: T;
  cut: boolean;
}

/** The request's messages (newest kept first) and its system instructions, each within `contentRoom(max)` characters. */
export function inputContent(view: RequestContent, max: number): { messages: Captured<Message[]>; system: Captured<Part[]> | undefined } {
  const room = new Room(contentRoom(max));
  const all = view.messages;
  const messages: Message[] = [];
  for (let i = all.length - 1; i >= 0 && room.has(); i--) {
    room.entry();
    messages.push({ role: room.label(all[i]!.role), parts: partsOf(all[i]!.parts, max, room) });
  }
  messages.reverse();
  const instructions = view.instructions;
  if (instructions.length === 0) return { messages: { value: messages, cut: room.cut }, system: undefined };
  const systemRoom = new Room(contentRoom(max));
  return { messages: { value: messages, cut: room.cut }, system: { value: partsOf(instructions, max, systemRoom), cut: systemRoom.cut } };
}

/** A whole answer's messages (one per choice), within `contentRoom(max)` characters. */
export function outputContent(answer: AnswerContent, max: number): Captured<Message[]> {
  const room = new Room(contentRoom(max));
  const out: Message[] = [];
  for (const choice of answer.choices) {
    if (!room.has()) break;
    room.entry();
    out.push(withReason({ role: 'assistant', parts: partsOf(choice.message.parts, max, room) }, choice.finish?.native));
  }
  return { value: out, cut: room.cut };
}

/** A stream's output text (the first choice's), collected from its events as they pass, up to `max` characters. */
export class StreamText {
  private text = '';
  private full = false;
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** What one event adds. */
  event(event: EventContent): void {
    if (this.full) return;
    for (const delta of event.deltas) if (delta.type === 'text' && delta.index === 0) this.add(delta.text);
  }

  /** True when the text went past `max` (its end is not kept). */
  get cut(): boolean {
    return this.full;
  }

  /** The collected text as one assistant message. */
  message(finishReason: string | undefined): Message[] {
    return [withReason({ role: 'assistant', parts: [{ type: 'text', content: this.full ? `${this.text}…` : this.text }] }, finishReason)];
  }

  protected add(t: string): void {
    const room = this.max - this.text.length;
    if (t.length > room) {
      this.text += t.slice(0, room);
      this.full = true;
    } else this.text += t;
  }
}

function withReason(m: Message, reason: string | undefined): Message {
  if (reason) m.finish_reason = reason;
  return m;
}

/** A message's parts while `room` lasts: texts, tool calls and results; anything else named by its kind only. */
function partsOf(parts: readonly ViewPart[], max: number, room: Room): Part[] {
  const out: Part[] = [];
  // a message of one part (a string's content) costs its message's entry alone
  const entries = parts.length > 1;
  for (const part of parts) {
    if (!room.has()) break;
    if (entries) room.entry();
    switch (part.type) {
      case 'text':
      case 'reasoning':
      case 'refusal':
        out.push({ type: part.type, content: room.take(part.text, max) });
        break;
      case 'tool_call': {
        const id = part.id === undefined ? undefined : room.label(part.id);
        const name = room.label(part.name);
        const args = room.take(part.arguments, max);
        out.push(id === undefined ? { type: 'tool_call', name, arguments: args } : { type: 'tool_call', id, name, arguments: args });
        break;
      }
      case 'tool_result':
        out.push({ type: 'tool_call_response', id: room.label(part.id ?? ''), result: room.take(part.output, max) });
        break;
      default:
        out.push({ type: room.label(part.kind) });
    }
  }
  return out;
}
