/**
 * The per-event cost of the Gemini client format's stream translation alone (no sockets):
 * common-format chunks → Gemini responses → wire text, on recorded OpenAI and DashScope
 * streams. Per event: the upstream chunk's JSON.parse (what the route pays for a
 * common-format upstream's raw `data:` payload), `CommonToGeminiStep.push`, and the SSE or
 * JSON-array encoding. Target (issue 11): at most 10 µs per event.
 *
 * Part of `npm run bench` (after the scenarios; `--only gemini-translate` alone), and runnable
 * by itself: `node bench/gemini-translate.ts`. Knob (env): GEMINI_BENCH_ROUNDS (streams
 * replayed per row after a warm-up, default 5000).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ChatCompletionChunk } from '../lib/common/chat.ts';
import { CommonToGeminiStep } from '../protocols/gemini/from-common-step.ts';
import { encodeSseResponse, JsonArrayFraming } from '../protocols/gemini/stream-framing.ts';

/** The name `--only` and the results use. */
export const GEMINI_TRANSLATE = 'gemini-translate';

const FIXTURES = [
  'openai/vercel-ai/openai-text.sse',
  'openai/vercel-ai/chat.stream.tool-call-deltas.sse',
  'openai/openai-node/chat.stream.include-usage.sse',
  'dashscope/vercel-ai/alibaba-reasoning.sse',
];

/** One measured row: a recorded stream in one framing. */
export interface TranslateRow {
  fixture: string;
  framing: 'sse' | 'array';
  events: number;
  usPerEvent: number;
}

/** The raw `data:` payloads of a recorded stream, as an upstream sends them. */
function payloads(rel: string): string[] {
  const text = readFileSync(new URL(`../test/fixtures/${rel}`, import.meta.url), 'utf8');
  return text
    .split(/\r?\n\r?\n/)
    .map((ev) =>
      ev
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    )
    .filter((d) => d !== '' && d !== '[DONE]');
}

/** Bytes written, so the work cannot be optimized away. */
let sink = 0;

function replay(events: string[], framing: 'sse' | 'array'): void {
  const mapper = new CommonToGeminiStep({ includeThoughts: true });
  const array = framing === 'array' ? new JsonArrayFraming() : undefined;
  for (const data of events) {
    for (const res of mapper.push(JSON.parse(data) as ChatCompletionChunk)) sink += (array ? array.frame(res) : encodeSseResponse(res)).length;
  }
  for (const res of mapper.end()) sink += (array ? array.frame(res) : encodeSseResponse(res)).length;
  if (array) sink += array.end().length;
}

/** Measures every fixture in both framings, `rounds` streams each after a warm-up. */
export function measureGeminiTranslate(rounds = Number(process.env.GEMINI_BENCH_ROUNDS ?? 5000)): TranslateRow[] {
  const rows: TranslateRow[] = [];
  for (const fixture of FIXTURES) {
    const events = payloads(fixture);
    for (const framing of ['sse', 'array'] as const) {
      for (let i = 0; i < Math.min(1000, rounds); i++) replay(events, framing);
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < rounds; i++) replay(events, framing);
      rows.push({ fixture, framing, events: events.length, usPerEvent: Number(process.hrtime.bigint() - t0) / 1e3 / (rounds * events.length) });
    }
  }
  return rows;
}

/** The readable table. */
export function formatGeminiTranslate(rows: TranslateRow[]): string {
  const lines = [
    `${GEMINI_TRANSLATE} — Gemini-in → openai-out stream translation per event, in process (JSON.parse of the upstream chunk + translation + encoding)`,
  ];
  lines.push(`  ${'fixture'.padEnd(52)} ${'framing'.padEnd(8)} ${'events'.padStart(6)} ${'µs/event'.padStart(9)}`);
  for (const r of rows) lines.push(`  ${r.fixture.padEnd(52)} ${r.framing.padEnd(8)} ${String(r.events).padStart(6)} ${r.usPerEvent.toFixed(2).padStart(9)}`);
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`node ${process.version}\n${formatGeminiTranslate(measureGeminiTranslate())}(${sink} bytes encoded)\n`);
}
