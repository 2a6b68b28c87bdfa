/**
 * How a protocol's content reader points at a wire string: one small object per part, of a
 * class with prototype methods (owner, key), so a view costs an object per part and no
 * closure. Reading is `owner[key]`; `set` writes `owner[key]` and nothing else.
 *
 * A tool call's arguments sent as JSON text (Chat, Responses) are parsed on the first
 * `argumentTexts()`; an edit of one of their strings is written back as JSON text by
 * `Edits.commit()` (or the next read of `arguments`), once per call however many strings
 * changed, so rewriting every string of an argument stays linear in its size.
 */
import type { TextDelta, TextPart, ToolArgumentsDelta, ToolCallPart, ToolResultPart } from './types.ts';

/** An object or an array: where a wire string sits, by key or index. */
type Slot = Record<string | number, unknown>;

/**
 * One view's edit state: whether `set` may write (the kernel opens a request's view while
 * its onRequest taps run), whether anything was written, and the JSON-text arguments still
 * to write back.
 */
export class Edits {
  /** Whether parts may be set; a set on a read-only view throws. */
  writable: boolean;
  private changed = false;
  private pending: Array<{ flush(): void }> | undefined = undefined;

  constructor(writable: boolean) {
    this.writable = writable;
  }

  /** True once a part was set. */
  get edited(): boolean {
    return this.changed;
  }

  /** A part is about to write. @throws Error when the view is read-only */
  write(): void {
    if (!this.writable) throw new Error('content is read-only here: edits are honoured in onRequest');
    this.changed = true;
  }

  /** JSON-text arguments with an edited string, written back by {@link commit}. */
  defer(args: { flush(): void }): void {
    (this.pending ??= []).push(args);
  }

  /** Writes every edited JSON-text argument back into its field; true when anything was edited. Call before the edited object is sent or serialized. */
  commit(): boolean {
    const pending = this.pending;
    if (pending !== undefined) {
      this.pending = undefined;
      for (const args of pending) args.flush();
    }
    return this.changed;
  }
}

function checked(text: unknown): string {
  if (typeof text !== 'string') throw new TypeError(`a content part is set to a string, got ${text === null ? 'null' : typeof text}`);
  return text;
}

/** A string field of a wire object, read and set in place. */
class WireString {
  protected readonly owner: Slot;
  protected readonly key: string | number;
  protected readonly at: Edits;

  constructor(owner: Slot, key: string | number, at: Edits) {
    this.owner = owner;
    this.key = key;
    this.at = at;
  }

  get text(): string {
    const value = this.owner[this.key];
    return typeof value === 'string' ? value : '';
  }

  set(text: string): void {
    const value = checked(text);
    this.at.write();
    this.owner[this.key] = value;
    this.written();
  }

  /** After a set: what else the edit must reach. */
  protected written(): void {}
}

/** A message's text, a delta, a string value inside a tool's arguments or result. */
class FieldText extends WireString implements TextDelta {
  readonly type: TextPart['type'];
  readonly index: number;
  /** The JSON-text arguments this string was parsed from, written back after a set. */
  private readonly source: JsonArguments | undefined;

  constructor(type: TextPart['type'], owner: Slot, key: string | number, at: Edits, index: number, source: JsonArguments | undefined) {
    super(owner, key, at);
    this.type = type;
    this.index = index;
    this.source = source;
  }

  protected override written(): void {
    this.source?.touch(this.at);
  }

  toJSON(): { type: string; text: string } {
    return { type: this.type, text: this.text };
  }
}

/** Tool-call arguments sent as JSON text, parsed once; written back as JSON text after an edit. */
class JsonArguments {
  private readonly owner: Slot;
  private readonly key: string | number;
  /** The parsed value at index 0 (so a bare JSON string is settable like any other). */
  private readonly root: unknown[];
  private dirty = false;

  constructor(owner: Slot, key: string | number, parsed: unknown) {
    this.owner = owner;
    this.key = key;
    this.root = [parsed];
  }

  texts(at: Edits): TextPart[] {
    return stringLeaves(this.root as unknown as Slot, 0, at, this, []);
  }

  touch(at: Edits): void {
    if (this.dirty) return;
    this.dirty = true;
    at.defer(this);
  }

  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    this.owner[this.key] = JSON.stringify(this.root[0]);
  }
}

/**
 * Every string value under `owner[key]` (the value itself when it is a string), in document
 * order, appended to `out`: keys, numbers, booleans and nulls never. Iterative, so depth
 * costs no stack; each value is visited once.
 */
function stringLeaves(owner: Slot, key: string | number, at: Edits, source: JsonArguments | undefined, out: TextPart[]): TextPart[] {
  const owners: Slot[] = [owner];
  const keys: Array<string | number> = [key];
  while (owners.length > 0) {
    const holder = owners.pop()!;
    const name = keys.pop()!;
    const value = holder[name];
    if (typeof value === 'string') out.push(new FieldText('text', holder, name, at, 0, source));
    else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        owners.push(value as unknown as Slot);
        keys.push(i);
      }
    } else if (typeof value === 'object' && value !== null) {
      const names = Object.keys(value);
      for (let i = names.length - 1; i >= 0; i--) {
        owners.push(value as Slot);
        keys.push(names[i]!);
      }
    }
  }
  return out;
}

/**
 * The settable strings of JSON text at `owner[key]`: its string values when it parses, else
 * the whole text as one part (a partial or malformed argument is still text).
 */
function jsonArguments(owner: Slot, key: string | number, at: Edits): { parts: TextPart[]; source: JsonArguments | undefined } {
  const text = owner[key];
  if (typeof text !== 'string') return { parts: [], source: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { parts: [new FieldText('text', owner, key, at, 0, undefined)], source: undefined };
  }
  const source = new JsonArguments(owner, key, parsed);
  return { parts: source.texts(at), source };
}

/** Arguments: JSON text (Chat, Responses), an object (Messages `input`, Gemini `args`), or free text (a Responses custom tool's `input`). */
class ToolCall implements ToolCallPart {
  readonly type = 'tool_call' as const;
  readonly id: string | undefined;
  readonly name: string;
  private readonly owner: Slot;
  private readonly key: string | number;
  private readonly at: Edits;
  private readonly raw: boolean;
  private parts: readonly TextPart[] | undefined = undefined;
  private source: JsonArguments | undefined = undefined;

  constructor(owner: Slot, key: string | number, id: string | undefined, name: string, at: Edits, raw: boolean) {
    this.owner = owner;
    this.key = key;
    this.id = id;
    this.name = name;
    this.at = at;
    this.raw = raw;
  }

  get arguments(): string {
    this.source?.flush();
    return jsonText(this.owner[this.key]);
  }

  argumentTexts(): readonly TextPart[] {
    if (this.parts !== undefined) return this.parts;
    const value = this.owner[this.key];
    if (typeof value !== 'string') return (this.parts = stringLeaves(this.owner, this.key, this.at, undefined, []));
    if (this.raw) return (this.parts = [new FieldText('text', this.owner, this.key, this.at, 0, undefined)]);
    const { parts, source } = jsonArguments(this.owner, this.key, this.at);
    this.source = source;
    return (this.parts = parts);
  }

  toJSON(): { type: 'tool_call'; id: string | undefined; name: string; arguments: string } {
    return { type: this.type, id: this.id, name: this.name, arguments: this.arguments };
  }
}

/** A result: a string, content blocks (their `text`), or a structured value (its string values). */
class ToolResult implements ToolResultPart {
  readonly type = 'tool_result' as const;
  readonly id: string | undefined;
  private readonly owner: Slot;
  private readonly key: string | number;
  private readonly at: Edits;
  private parts: readonly TextPart[] | undefined = undefined;

  constructor(owner: Slot, key: string | number, id: string | undefined, at: Edits) {
    this.owner = owner;
    this.key = key;
    this.id = id;
    this.at = at;
  }

  get output(): string {
    return jsonText(this.owner[this.key]);
  }

  texts(): readonly TextPart[] {
    if (this.parts !== undefined) return this.parts;
    const value = this.owner[this.key];
    if (!Array.isArray(value)) return (this.parts = stringLeaves(this.owner, this.key, this.at, undefined, []));
    const parts: TextPart[] = [];
    for (const block of value) {
      if (typeof block === 'object' && block !== null && typeof (block as Slot).text === 'string')
        parts.push(new FieldText('text', block as Slot, 'text', this.at, 0, undefined));
    }
    return (this.parts = parts);
  }

  toJSON(): { type: 'tool_result'; id: string | undefined; output: string } {
    return { type: this.type, id: this.id, output: this.output };
  }
}

/** A piece of a tool call's arguments in a stream event. */
class ArgumentsDelta extends WireString implements ToolArgumentsDelta {
  readonly type = 'tool_arguments' as const;
  readonly index: number;
  readonly call: number;
  readonly id: string | undefined;
  readonly name: string | undefined;

  constructor(owner: Slot, key: string | number, index: number, call: number, id: string | undefined, name: string | undefined, at: Edits) {
    super(owner, key, at);
    this.index = index;
    this.call = call;
    this.id = id;
    this.name = name;
  }

  toJSON(): { type: 'tool_arguments'; index: number; call: number; id: string | undefined; name: string | undefined; text: string } {
    return { type: this.type, index: this.index, call: this.call, id: this.id, name: this.name, text: this.text };
  }
}

/** A value as JSON text: a string as is, '' for none. */
function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? '' : (JSON.stringify(value) ?? '');
}

/**
 * The string at `owner[key]` as a part (of a stream event's choice `index`). The reader
 * checks that it is a string; `text` reads '' if it no longer is.
 */
export function textAt(owner: Record<string, unknown>, key: string, type: TextPart['type'], at: Edits, index = 0): TextDelta {
  return new FieldText(type, owner, key, at, index, undefined);
}

/**
 * A tool call whose arguments are `owner[key]`: JSON text, an object, or (`raw`) free text
 * that is one part whatever it holds.
 */
export function toolCall(owner: Record<string, unknown>, key: string, id: string | undefined, name: string, at: Edits, raw = false): ToolCallPart {
  return new ToolCall(owner, key, id, name, at, raw);
}

/** A tool result at `owner[key]`: a string, an array of content blocks, or a structured value. */
export function toolResult(owner: Record<string, unknown>, key: string, id: string | undefined, at: Edits): ToolResultPart {
  return new ToolResult(owner, key, id, at);
}

/** The piece of call `call`'s arguments at `owner[key]` in a stream event (choice `index`); `id` and `name` where the event opens the call. */
export function argumentsDelta(
  owner: Record<string, unknown>,
  key: string,
  index: number,
  call: number,
  at: Edits,
  id?: string,
  name?: string,
): ToolArgumentsDelta {
  return new ArgumentsDelta(owner, key, index, call, id, name, at);
}
