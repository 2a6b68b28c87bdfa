/**
 * The stream window: response checks over a stream's events, holding back only what may still
 * be part of a match. An event step (`push` an event, get the events that may leave now):
 *
 * - Text, reasoning and refusal deltas form one channel per choice and type. After each event
 *   every check says how much of the channel's end may be a match in progress (a detector's
 *   `pending`: the trailing word for a key, a `-----BEGIN` without its end…); the text before
 *   that is final. An event leaves once every delta it carries is final, in order; a final
 *   match is masked across the events it spans (the placeholder in the first, the rest cut
 *   from the others), so a secret split at any byte is masked whole.
 * - A tool call's arguments are held until the call is complete (its JSON closes, another
 *   block of its choice starts, the choice finishes or the stream ends), then checked on their
 *   decoded string values and written back as JSON text, whole, in the call's first delta.
 * - Tool calls an event carries whole and text it repeats (Responses' `*.done` events and
 *   final response) are checked as they come.
 * - A final match of a `block` check cuts the stream: the events before it leave, the event
 *   holding its first character leaves with the text before it, and `cut` names the check, so
 *   the caller ends the stream with its format's error event or `content_filter` finish.
 */
import type { EventContent, TextPart } from 'gw/plugin';
import type { Check } from './checks.ts';
import type { Match } from './detector.ts';
import { applyMasks, type Blocked, byStart, type MaskMatch, type Outcome, Outcomes } from './engine.ts';

/** A stream event as a step holds it: an object of its own (the kernel's holder is reused), its content view writable (gw/plugin's EventStep). */
export interface HeldChunk {
  content(): EventContent;
}

/** One input in, zero or more outputs; `end` flushes. One instance per stream, no I/O. */
export interface StreamStep<In, Out> {
  push(item: In): Out[];
  end(): Out[];
}

/** The window as a step: after `push` or `end`, `cut` set means send what it returned, then end the stream (the kernel's EventStep carries it as an error). */
export interface BlockingStep<C extends HeldChunk = HeldChunk> extends StreamStep<C, C> {
  readonly cut: Blocked | undefined;
}

/** Characters of released text kept for a detector's look-behind (`\b`, "no letter before"). */
const CONTEXT = 16;

/** A delta's place in its channel: characters [start, end) of the channel's text. */
interface Slot {
  readonly channel: Channel;
  /** Which event of the stream holds it (0 for the first pushed). */
  readonly seq: number;
  readonly start: number;
  readonly end: number;
  readonly delta: { readonly text: string; set(text: string): void };
}

/** An event held, and its deltas' places. */
interface Held<C> {
  readonly chunk: C;
  readonly slots: Slot[];
  /** It carries a finish reason (never sent with its text cut: the cut adds its own ending). */
  readonly finishes: boolean;
}

/** The text of one choice's text, reasoning or refusal deltas, or of one tool call's arguments. */
class Channel {
  readonly choice: number;
  readonly tool: boolean;
  /** Offset of `text[0]` in the channel. */
  base = 0;
  /** Text not released yet. */
  text = '';
  /** Released text's last characters, for look-behind. */
  context = '';
  /** Slots not released yet, in order. */
  readonly slots: Slot[] = [];
  /** Offset up to which text is final (after {@link Window.settle}). */
  final = 0;
  /** Final matches not released yet, by start. */
  matches: Array<Match & { readonly check: Check }> = [];
  /** No more text will come (the choice finished, or the call is complete). */
  closed = false;
  /** Text arrived or the channel closed since it was last settled. */
  dirty = false;
  /** Tool arguments: JSON nesting so far (string-aware), and whether it opened. */
  depth = 0;
  opened = false;
  inString = false;
  escaped = false;

  constructor(choice: number, tool: boolean) {
    this.choice = choice;
    this.tool = tool;
  }

  get end(): number {
    return this.base + this.text.length;
  }

  /** Follows JSON nesting over `piece`; true when the top-level value just closed. */
  follow(piece: string): boolean {
    for (let i = 0; i < piece.length; i++) {
      const code = piece.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (code === 92) this.escaped = true;
        else if (code === 34) this.inString = false;
      } else if (code === 34) this.inString = true;
      else if (code === 123 || code === 91) {
        this.depth++;
        this.opened = true;
      } else if ((code === 125 || code === 93) && --this.depth === 0 && this.opened) return true;
    }
    return false;
  }
}

const TYPE_CODE: Readonly<Record<string, number>> = { text: 0, reasoning: 1, refusal: 2 };

/**
 * The guardrails step over one stream, for the response checks with a local detector in
 * `checks` (webhooks never run per event). `outcomes` holds what the checks did so far.
 */
export class Window<C extends HeldChunk = HeldChunk> implements BlockingStep<C> {
  cut: Blocked | undefined = undefined;
  private readonly checks: readonly Check[];
  private readonly counted: Outcomes = new Outcomes('response');
  private readonly queue: Array<Held<C>> = [];
  /** The first held event's place in {@link queue}. */
  private head = 0;
  /** The stream position (`Slot.seq`) of `queue[0]`. */
  private seqBase = 0;
  private readonly texts = new Map<number, Channel>();
  private readonly tools = new Map<number, Channel>();
  private readonly open: Channel[] = [];

  constructor(checks: readonly Check[]) {
    this.checks = checks.filter((check) => check.response && check.detector !== undefined);
  }

  /** Whether any check of `checks` reads streamed answers (else no step is needed). */
  static wanted(checks: readonly Check[]): boolean {
    return checks.some((check) => check.response && check.detector !== undefined);
  }

  get outcomes(): readonly Outcome[] {
    return this.counted.list;
  }

  push(chunk: C): C[] {
    if (this.cut !== undefined) return [];
    const view = chunk.content();
    const slots: Slot[] = [];
    const seq = this.seqBase + this.queue.length;
    for (const delta of view.deltas) {
      if (delta.text === '') continue;
      let channel: Channel;
      if (delta.type === 'tool_arguments') {
        channel = this.toolChannel(delta.index, delta.call);
        if (channel.follow(delta.text)) channel.closed = true;
      } else {
        channel = this.textChannel(delta.index, TYPE_CODE[delta.type] ?? 0);
        // text after its choice's finish (a provider's trailing chunk) is held like any other
        channel.closed = false;
        this.closeCalls(delta.index, undefined);
      }
      const slot: Slot = { channel, seq, start: channel.end, end: channel.end + delta.text.length, delta };
      channel.text += delta.text;
      channel.slots.push(slot);
      channel.dirty = true;
      slots.push(slot);
    }
    const whole = this.checkWhole(view);
    for (const finish of view.finish) this.closeChoice(finish.index);
    this.queue.push({ chunk, slots, finishes: view.finish.length > 0 });
    if (whole !== undefined) return this.block(this.queue.length - 1, undefined, whole);
    return this.release();
  }

  end(): C[] {
    if (this.cut !== undefined) return [];
    for (const channel of this.texts.values()) this.close(channel);
    for (const channel of this.tools.values()) this.close(channel);
    return this.release();
  }

  private textChannel(choice: number, type: number): Channel {
    const id = choice * 4 + type;
    let channel = this.texts.get(id);
    if (channel === undefined) {
      channel = new Channel(choice, false);
      this.texts.set(id, channel);
    }
    return channel;
  }

  private toolChannel(choice: number, call: number): Channel {
    const id = choice * 65_536 + call;
    let channel = this.tools.get(id);
    if (channel === undefined || channel.closed) {
      // a new call, or a call of the same number after the last one closed: blocks of a choice come one after another
      this.closeCalls(choice, channel);
      channel = new Channel(choice, true);
      this.tools.set(id, channel);
      this.open.push(channel);
    }
    return channel;
  }

  /** Closes the open calls of `choice` but `keep`: another block of the choice started. */
  private closeCalls(choice: number, keep: Channel | undefined): void {
    for (const channel of this.open) if (channel.choice === choice && channel !== keep) this.close(channel);
  }

  private closeChoice(choice: number): void {
    for (const channel of this.texts.values()) if (channel.choice === choice) this.close(channel);
    for (const channel of this.tools.values()) if (channel.choice === choice) this.close(channel);
  }

  private close(channel: Channel): void {
    if (channel.closed) return;
    channel.closed = true;
    channel.dirty = true;
  }

  /** Checks what the event carries whole (tool calls, repeated text): masks in place; the block it calls for, if any. */
  private checkWhole(view: EventContent): Blocked | undefined {
    if (view.toolCalls.length === 0 && view.repeated.length === 0) return undefined;
    for (const call of view.toolCalls) {
      for (const part of call.argumentTexts()) {
        const blocked = this.checkText(part, true);
        if (blocked !== undefined) return blocked;
      }
    }
    // repeated text was counted as it streamed: masked again, not counted again
    for (const item of view.repeated) {
      const parts: readonly TextPart[] = item.type === 'tool_call' ? item.argumentTexts() : [item];
      for (const part of parts) {
        const blocked = this.checkText(part, false);
        if (blocked !== undefined) return blocked;
      }
    }
    return undefined;
  }

  /** Runs every check on a whole text part: masks, counts (when `count`); the block, if any. */
  private checkText(part: { readonly text: string; set(text: string): void }, count: boolean): Blocked | undefined {
    const text = part.text;
    if (text === '') return undefined;
    let masks: MaskMatch[] | undefined;
    for (const check of this.checks) {
      const found = check.detector!.find(text);
      if (found.length === 0) continue;
      if (count || check.action === 'block') for (const match of found) this.counted.add(check.name, check.action, match.entity);
      if (check.action === 'block') return { check: check.name, entity: found[0]!.entity };
      if (check.action === 'mask') {
        masks ??= [];
        for (const match of found) masks.push({ start: match.start, end: match.end, entity: match.entity, placeholder: check.placeholder(match.entity) });
      }
    }
    if (masks !== undefined) part.set(applyMasks(text, masks.sort(byStart)));
    return undefined;
  }

  /** Settles every channel that changed, then releases what may leave, or cuts. */
  private release(): C[] {
    for (const channel of this.texts.values()) if (channel.dirty) this.settleText(channel);
    for (let i = 0; i < this.open.length; i++) {
      const channel = this.open[i]!;
      if (!channel.closed) continue;
      this.open.splice(i--, 1);
      const blocked = this.settleCall(channel);
      if (blocked !== undefined) return this.block(channel.slots[0]!.seq - this.seqBase, undefined, blocked);
    }
    // a block is final before anything after it: cut at the earliest one
    let firstBlock: { at: number; channel: Channel; match: Match & { check: Check } } | undefined;
    for (const channel of this.texts.values()) {
      for (const match of channel.matches) {
        if (match.check.action !== 'block') continue;
        const at = this.indexOfOffset(channel, match.start);
        if (at === -1) continue;
        if (firstBlock === undefined || at < firstBlock.at) firstBlock = { at, channel, match };
        break;
      }
    }
    if (firstBlock !== undefined) {
      const { match } = firstBlock;
      this.counted.add(match.check.name, 'block', match.entity);
      return this.block(firstBlock.at, { channel: firstBlock.channel, offset: match.start }, { check: match.check.name, entity: match.entity });
    }
    return this.releaseReady();
  }

  /** Computes the channel's final offset and its final matches (masking and monitoring checks only reach here unreleased). */
  private settleText(channel: Channel): void {
    channel.dirty = false;
    const scan = channel.context + channel.text;
    const offset = channel.base - channel.context.length;
    let final = channel.end;
    if (!channel.closed) for (const check of this.checks) final = Math.min(final, offset + check.detector!.pending(scan));
    final = Math.max(final, channel.base);
    // nothing would leave: leave the scan for the next event
    if (!channel.closed && (channel.slots.length === 0 || channel.slots[0]!.end > final)) {
      channel.final = channel.base;
      channel.matches = [];
      return;
    }
    const matches: Array<Match & { check: Check }> = [];
    for (const check of this.checks) {
      for (const match of check.detector!.find(scan)) {
        const start = offset + match.start;
        if (start < channel.base) continue;
        matches.push({ start, end: offset + match.end, entity: match.entity, check });
      }
    }
    matches.sort(byStart);
    // a match that the final offset cuts is held whole
    for (let moved = true; moved; ) {
      moved = false;
      for (const match of matches) {
        if (match.start < final && match.end > final) {
          final = match.start;
          moved = true;
        }
      }
    }
    channel.final = final;
    channel.matches = matches.filter((match) => match.end <= final);
  }

  /** A complete call's arguments: checked on their decoded strings, rewritten whole into its first delta. */
  private settleCall(channel: Channel): Blocked | undefined {
    const text = channel.text;
    channel.final = channel.end;
    channel.dirty = false;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    let rewritten: string | undefined;
    if (value !== undefined && typeof value === 'object' && value !== null) {
      let changed = false;
      const blocked = walkStrings(value, (owner, key) => {
        const leaf = {
          text: owner[key] as string,
          set(next: string) {
            owner[key] = next;
            changed = true;
          },
        };
        return this.checkText(leaf, true);
      });
      if (blocked !== undefined) return blocked;
      if (changed) rewritten = JSON.stringify(value);
    } else {
      const blocked = this.checkText(
        {
          text,
          set(next: string) {
            rewritten = next;
          },
        },
        true,
      );
      if (blocked !== undefined) return blocked;
    }
    if (rewritten !== undefined) {
      channel.slots[0]!.delta.set(rewritten);
      for (let i = 1; i < channel.slots.length; i++) channel.slots[i]!.delta.set('');
    }
    return undefined;
  }

  /** The events that may leave now (at most `limit`), in order, with their text masked. */
  private releaseReady(limit = Number.POSITIVE_INFINITY): C[] {
    let count = Math.min(limit, this.readyCount());
    // an event boundary inside a final match: hold the match whole
    for (let moved = true; moved; ) {
      moved = false;
      for (const channel of this.texts.values()) {
        const boundary = this.boundary(channel, count);
        for (const match of channel.matches) {
          if (match.start < boundary && match.end > boundary) {
            channel.final = match.start;
            moved = true;
          }
        }
      }
      if (moved) count = Math.min(limit, this.readyCount());
    }
    if (count === 0) return [];
    for (const channel of this.texts.values()) this.releaseText(channel, this.boundary(channel, count));
    return this.take(count);
  }

  /** How many held events, from the first, have every delta final. */
  private readyCount(): number {
    let count = 0;
    for (let i = this.head; i < this.queue.length; i++) {
      const held = this.queue[i]!;
      let ready = true;
      for (const slot of held.slots) {
        if (slot.channel.tool ? !slot.channel.closed || slot.channel.dirty : slot.end > slot.channel.final) {
          ready = false;
          break;
        }
      }
      if (!ready) break;
      count++;
    }
    return count;
  }

  /** The channel offset the first `count` held events release up to. */
  private boundary(channel: Channel, count: number): number {
    let boundary = channel.base;
    const last = this.seqBase + this.head + count;
    for (const slot of channel.slots) {
      if (slot.seq >= last) break;
      boundary = slot.end;
    }
    return boundary;
  }

  /** Masks the channel's text up to `boundary` in its deltas and forgets it. */
  private releaseText(channel: Channel, boundary: number): void {
    if (boundary === channel.base) return;
    const masks: MaskMatch[] = [];
    let kept = 0;
    for (const match of channel.matches) {
      if (match.start >= boundary) break;
      kept++;
      this.counted.add(match.check.name, match.check.action, match.entity);
      if (match.check.action === 'mask')
        masks.push({ start: match.start, end: match.end, entity: match.entity, placeholder: match.check.placeholder(match.entity) });
    }
    channel.matches = channel.matches.slice(kept);
    let released = 0;
    for (const slot of channel.slots) {
      if (slot.end > boundary) break;
      released++;
      if (masks.length > 0) rewriteSlot(slot, masks);
    }
    channel.slots.splice(0, released);
    const gone = channel.text.slice(0, boundary - channel.base);
    channel.context = (channel.context + gone).slice(-CONTEXT);
    channel.text = channel.text.slice(boundary - channel.base);
    channel.base = boundary;
  }

  /** Takes the first `count` held events off the queue. */
  private take(count: number): C[] {
    const out: C[] = [];
    for (let i = 0; i < count; i++) out.push(this.queue[this.head + i]!.chunk);
    this.head += count;
    if (this.head > 64 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.seqBase += this.head;
      this.head = 0;
    }
    return out;
  }

  /**
   * Ends the stream at held event `at` (a queue index): the final events before it leave,
   * masked; with `cut`, so does that event, its text up to the cut (other deltas emptied),
   * when everything before it left and it carries no finish of its own.
   */
  private block(at: number, cut: { channel: Channel; offset: number } | undefined, blocked: Blocked): C[] {
    this.cut = blocked;
    const out = this.releaseReady(Math.max(0, at - this.head));
    if (cut !== undefined && this.head === at && !this.queue[at]!.finishes) {
      const held = this.queue[at]!;
      for (const slot of held.slots) {
        if (slot.channel !== cut.channel || slot.start >= cut.offset) {
          slot.delta.set('');
          continue;
        }
        const kept = slot.delta.text.slice(0, cut.offset - slot.start);
        const masks: MaskMatch[] = [];
        for (const match of cut.channel.matches) {
          if (match.check.action !== 'mask' || match.end > cut.offset || match.start < slot.start) continue;
          masks.push({
            start: match.start - slot.start,
            end: match.end - slot.start,
            entity: match.entity,
            placeholder: match.check.placeholder(match.entity),
          });
        }
        slot.delta.set(applyMasks(kept, masks));
      }
      if (held.slots.some((slot) => slot.delta.text !== '')) out.push(held.chunk);
    }
    this.queue.length = 0;
    this.head = 0;
    return out;
  }

  /** The queue index of the event holding the channel's character at `offset`; -1 when none is held. */
  private indexOfOffset(channel: Channel, offset: number): number {
    for (const slot of channel.slots) if (slot.start <= offset && offset < slot.end) return slot.seq - this.seqBase;
    return -1;
  }
}

/** A slot's text with `masks` applied: a match's placeholder in the slot holding its first character, its other characters cut. */
function rewriteSlot(slot: Slot, masks: readonly MaskMatch[]): void {
  const text = slot.delta.text;
  let out = '';
  let at = slot.start;
  let touched = false;
  for (const mask of masks) {
    if (mask.end <= slot.start || mask.end <= at) continue;
    if (mask.start >= slot.end) break;
    touched = true;
    if (mask.start >= at) {
      out += text.slice(at - slot.start, mask.start - slot.start) + mask.placeholder;
    }
    at = Math.min(slot.end, mask.end);
  }
  if (!touched) return;
  out += text.slice(at - slot.start);
  slot.delta.set(out);
}

/** Calls `visit` on every string value under `value` (not keys), depth-first, iteratively; stops at the first block it returns. */
function walkStrings(value: object, visit: (owner: Record<string | number, unknown>, key: string | number) => Blocked | undefined): Blocked | undefined {
  const owners: Array<Record<string | number, unknown>> = [value as Record<string | number, unknown>];
  while (owners.length > 0) {
    const owner = owners.pop()!;
    for (const key of Array.isArray(owner) ? owner.keys() : Object.keys(owner)) {
      const item = owner[key];
      if (typeof item === 'string') {
        const blocked = visit(owner, key);
        if (blocked !== undefined) return blocked;
      } else if (typeof item === 'object' && item !== null) owners.push(item as Record<string | number, unknown>);
    }
  }
  return undefined;
}
