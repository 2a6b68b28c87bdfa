/**
 * Test helpers for the anthropic provider: read a recorded fixture, split raw SSE text
 * into events (just enough SSE for recorded Messages streams: `event:`/`data:` lines,
 * blank-line separated), run a stream mapper over them, and reassemble the chunks.
 */
import { readFileSync } from 'node:fs';
import type { ChatCompletionChunk, FinishReason, Usage } from '../../lib/common/chat.ts';
import type { SseEvent } from '../../lib/provider.ts';
import type { StreamStep } from '../../lib/vendor/side.ts';

const FIXTURES = new URL('../fixtures/anthropic/', import.meta.url);

export function readFixture(rel: string): string {
  return readFileSync(new URL(rel, FIXTURES), 'utf8');
}

export function readJsonFixture<T>(rel: string): T {
  return JSON.parse(readFixture(rel)) as T;
}

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (event !== undefined || data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}

export function runMapper(mapper: StreamStep<SseEvent, ChatCompletionChunk>, events: SseEvent[]): ChatCompletionChunk[] {
  const chunks: ChatCompletionChunk[] = [];
  for (const e of events) chunks.push(...mapper.push(e));
  chunks.push(...mapper.end());
  return chunks;
}

export interface Reassembled {
  role: string | undefined;
  content: string;
  reasoning: string;
  refusal: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReasons: Array<FinishReason | null>;
  usage: Usage | null | undefined;
}

/** What an OpenAI client would build from the chunks. */
export function reassemble(chunks: ChatCompletionChunk[]): Reassembled {
  const out: Reassembled = { role: undefined, content: '', reasoning: '', refusal: '', toolCalls: [], finishReasons: [], usage: undefined };
  for (const chunk of chunks) {
    if (chunk.usage) out.usage = chunk.usage;
    for (const choice of chunk.choices) {
      const d = choice.delta;
      if (d.role) out.role = d.role;
      if (typeof d.content === 'string') out.content += d.content;
      if (typeof d.reasoning_content === 'string') out.reasoning += d.reasoning_content;
      if (typeof d.refusal === 'string') out.refusal += d.refusal;
      for (const tc of d.tool_calls ?? []) {
        const call = (out.toolCalls[tc.index] ??= { id: '', name: '', arguments: '' });
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.name = tc.function.name;
        if (tc.function?.arguments) call.arguments += tc.function.arguments;
      }
      if (choice.finish_reason !== null) out.finishReasons.push(choice.finish_reason);
    }
  }
  return out;
}
