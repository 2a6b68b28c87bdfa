/**
 * `node bench/gemini-translate.ts`: the per-event cost of the Gemini client format's stream
 * translation alone (no sockets), common-format chunks → Gemini responses → wire text, on
 * recorded OpenAI streams. Per event: the upstream chunk's JSON.parse (what the route pays
 * for a common-format upstream's raw `data:` payload), `ChunksToGeminiStream.push`, and the
 * SSE or JSON-array encoding. Target (issue 11): at most 10 µs per event.
 *
 * Knobs (env): GEMINI_BENCH_ROUNDS (streams replayed per fixture, default 20000).
 */
import { readFileSync } from 'node:fs';
import type { ChatCompletionChunk } from '../core/format/chat.ts';
import { ChunksToGeminiStream } from '../plugins/formats/gemini/chunks-to-stream.ts';
import { encodeSseResponse, JsonArrayFraming } from '../plugins/formats/gemini/stream-framing.ts';

const FIXTURES = ['openai/vercel-ai/openai-text.sse', 'openai/vercel-ai/chat.stream.tool-call-deltas.sse', 'dashscope/vercel-ai/alibaba-reasoning.sse'];
const rounds = Number(process.env.GEMINI_BENCH_ROUNDS ?? 20_000);

/** The raw `data:` payloads of a recorded stream, as an upstream sends them. */
function payloads(rel: string): string[] {
  const text = readFileSync(new URL(`../test/fixtures/${rel}`, import.meta.url), 'utf8');
  return text.split(/\r?\n\r?\n/)
    .map((ev) => ev.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n'))
    .filter((d) => d !== '' && d !== '[DONE]');
}

/** Bytes written, so the work cannot be optimized away. */
let sink = 0;

function replay(events: string[], framing: 'sse' | 'array', includeThoughts: boolean): void {
  const mapper = new ChunksToGeminiStream({ includeThoughts });
  const array = framing === 'array' ? new JsonArrayFraming() : undefined;
  for (const data of events) {
    for (const res of mapper.push(JSON.parse(data) as ChatCompletionChunk)) sink += (array ? array.frame(res) : encodeSseResponse(res)).length;
  }
  for (const res of mapper.end()) sink += (array ? array.frame(res) : encodeSseResponse(res)).length;
  if (array) sink += array.end().length;
}

process.stdout.write(`Gemini-in stream translation, node ${process.version}, ${rounds} streams per row (after a warm-up)\n`);
process.stdout.write(`${'fixture'.padEnd(52)} ${'framing'.padEnd(8)} ${'events'.padStart(6)} ${'µs/event'.padStart(9)}\n`);
for (const rel of FIXTURES) {
  const events = payloads(rel);
  for (const framing of ['sse', 'array'] as const) {
    for (let i = 0; i < Math.min(2000, rounds); i++) replay(events, framing, true);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) replay(events, framing, true);
    const us = Number(process.hrtime.bigint() - t0) / 1e3 / (rounds * events.length);
    process.stdout.write(`${rel.padEnd(52)} ${framing.padEnd(8)} ${String(events.length).padStart(6)} ${us.toFixed(2).padStart(9)}\n`);
  }
}
process.stdout.write(`(${sink} bytes encoded)\n`);
