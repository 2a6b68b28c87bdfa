/**
 * Streams for the guardrails window tests: a recorded stream of each protocol with its text
 * replaced by chosen pieces (one event per piece, cloned from the stream's first text event,
 * and the text its later events repeat whole rewritten to match), pushed through a step as
 * the kernel will: each event an object of its own with a writable content view, serialized
 * again when it leaves.
 */
import { Edits } from '../../lib/content/parts.ts';
import type { EventContent } from '../../lib/content/types.ts';
import { eventContent } from '../../lib/content/view.ts';
import type { HeldChunk, StreamStep } from '../../plugins/extensions/guardrails/window.ts';
import { type ContentCase, contentCases, type ProtocolId, READERS } from './content-fixtures.ts';

/** One recorded stream per protocol, each with text deltas. */
export const STREAM_FIXTURES: Readonly<Record<ProtocolId, string>> = {
  'openai-chat': 'openai/openai-node/chat.stream.include-usage.sse',
  'anthropic-messages': 'anthropic/vercel-ai/anthropic-text.sse',
  'openai-responses': 'responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt',
  gemini: 'gemini/vercel-ai/google-text.sse',
};

/** A parsed event as a step holds it. */
export class TestChunk implements HeldChunk {
  readonly value: Record<string, unknown>;
  private readonly protocol: ProtocolId;
  private readonly edits = new Edits(true);
  private view: EventContent | undefined;

  constructor(protocol: ProtocolId, value: Record<string, unknown>) {
    this.protocol = protocol;
    this.value = value;
  }

  content(): EventContent {
    return (this.view ??= eventContent(READERS[this.protocol], this.value, this.edits));
  }

  /** The event's data as it would be sent: edits written back. */
  data(): string {
    this.edits.commit();
    return JSON.stringify(this.value);
  }
}

const cases = new Map<string, ContentCase>(contentCases().cases.map((c) => [c.name, c]));

function view(protocol: ProtocolId, value: unknown): EventContent {
  return eventContent(READERS[protocol], value, new Edits(true));
}

const isText = (protocol: ProtocolId, value: unknown) => view(protocol, value).deltas.some((d) => d.type === 'text' && d.index === 0);

/**
 * The recorded stream of `protocol` with its choice-0 text replaced by `pieces`: parsed
 * events (JSON), ready for {@link TestChunk}.
 */
export function streamWithText(protocol: ProtocolId, pieces: readonly string[]): Array<Record<string, unknown>> {
  const c = cases.get(STREAM_FIXTURES[protocol]);
  if (c?.kind !== 'stream') throw new Error(`no stream fixture for ${protocol}`);
  const events = c.events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
  const first = events.findIndex((e) => isText(protocol, e));
  if (first === -1) throw new Error(`${STREAM_FIXTURES[protocol]} has no text delta`);
  let original = '';
  for (const e of events) for (const d of view(protocol, e).deltas) if (d.type === 'text' && d.index === 0) original += d.text;
  const template = JSON.stringify(events[first]);
  const out: Array<Record<string, unknown>> = [];
  const full = pieces.join('');
  for (let i = 0; i < events.length; i++) {
    if (i === first) {
      for (const piece of pieces) {
        const clone = JSON.parse(template) as Record<string, unknown>;
        const content = view(protocol, clone);
        let set = false;
        for (const d of content.deltas) {
          if (d.type === 'text' && d.index === 0 && !set) {
            d.set(piece);
            set = true;
          } else if (d.type === 'text') d.set('');
        }
        out.push(clone);
      }
      continue;
    }
    const event = events[i]!;
    if (isText(protocol, event)) continue;
    // text the stream repeats whole (Responses' `*.done`, the final response) says what the deltas said
    const at = new Edits(true);
    const content = eventContent(READERS[protocol], event, at);
    for (const part of content.repeated) if (part.type !== 'tool_call' && part.text === original) part.set(full);
    at.commit();
    out.push(event);
  }
  return out;
}

/** Pushes every event through `step` (then `end`), and returns what left, serialized. */
export function run(protocol: ProtocolId, events: ReadonlyArray<Record<string, unknown>>, step: StreamStep<TestChunk, TestChunk>): string[] {
  return runTimed(protocol, events, step).map((left) => left.data);
}

/** As {@link run}, with when each event left: after how many pushes (`events.length` for `end`). */
export function runTimed(
  protocol: ProtocolId,
  events: ReadonlyArray<Record<string, unknown>>,
  step: StreamStep<TestChunk, TestChunk>,
): Array<{ data: string; after: number }> {
  const out: Array<{ data: string; after: number }> = [];
  events.forEach((value, i) => {
    for (const chunk of step.push(new TestChunk(protocol, structuredClone(value)))) out.push({ data: chunk.data(), after: i + 1 });
  });
  for (const chunk of step.end()) out.push({ data: chunk.data(), after: events.length });
  return out;
}

/** Tool-call streams: one recorded stream per protocol whose calls stream their arguments. */
export const TOOL_STREAM_FIXTURES: Readonly<Partial<Record<ProtocolId, string>>> = {
  'openai-chat': 'openai/vercel-ai/chat.stream.tool-call-deltas.sse',
  'anthropic-messages': 'anthropic/anthropic-sdk-typescript/tool_use.sse',
  'openai-responses': 'responses/vercel-ai/issue-19493-gpt-5.1-tool-call.chunks.txt',
};

/**
 * The recorded tool-call stream of `protocol` with its first call's arguments replaced by
 * `pieces` (one event per piece, cloned from the call's first arguments event; the events
 * that repeat the arguments whole say the new ones).
 */
export function streamWithArguments(protocol: ProtocolId, pieces: readonly string[]): Array<Record<string, unknown>> {
  const c = cases.get(TOOL_STREAM_FIXTURES[protocol] ?? '');
  if (c?.kind !== 'stream') throw new Error(`no tool stream fixture for ${protocol}`);
  const events = c.events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
  const argumentDelta = (value: unknown) => view(protocol, value).deltas.find((d) => d.type === 'tool_arguments' && d.text !== '');
  const first = events.findIndex((e) => argumentDelta(e) !== undefined);
  if (first === -1) throw new Error(`${TOOL_STREAM_FIXTURES[protocol]} streams no arguments`);
  const call = (argumentDelta(events[first]) as { call: number }).call;
  const ofCall = (value: unknown) => {
    const d = argumentDelta(value);
    return d !== undefined && d.type === 'tool_arguments' && d.call === call;
  };
  let original = '';
  for (const e of events) if (ofCall(e)) original += argumentDelta(e)!.text;
  const full = pieces.join('');
  const template = JSON.stringify(events[first]);
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < events.length; i++) {
    if (i === first) {
      for (const piece of pieces) {
        const clone = JSON.parse(template) as Record<string, unknown>;
        argumentDelta(clone)!.set(piece);
        out.push(clone);
      }
      continue;
    }
    if (ofCall(events[i])) continue;
    // the arguments repeated whole, as JSON text inside the event's JSON
    const data = JSON.stringify(events[i]).replaceAll(JSON.stringify(original).slice(1, -1), JSON.stringify(full).slice(1, -1));
    out.push(JSON.parse(data) as Record<string, unknown>);
  }
  return out;
}

/** The arguments of tool call `call`'s deltas (choice 0), joined. */
export function argumentsOf(protocol: ProtocolId, data: readonly string[]): string {
  let text = '';
  for (const d of data) for (const delta of view(protocol, JSON.parse(d)).deltas) if (delta.type === 'tool_arguments' && delta.index === 0) text += delta.text;
  return text;
}

/** The choice-0 text the events carry as deltas, joined. */
export function textOf(protocol: ProtocolId, data: readonly string[]): string {
  let text = '';
  for (const d of data) for (const delta of view(protocol, JSON.parse(d)).deltas) if (delta.type === 'text' && delta.index === 0) text += delta.text;
  return text;
}

/** An event's JSON with every settable text emptied: what a mask must leave byte for byte. */
export function withoutText(protocol: ProtocolId, data: string): string {
  const value = JSON.parse(data) as Record<string, unknown>;
  const at = new Edits(true);
  for (const part of eventContent(READERS[protocol], value, at).texts()) part.set('');
  at.commit();
  return JSON.stringify(value);
}
