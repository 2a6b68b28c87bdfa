/**
 * Micro-benchmark of the translated Responses stream path without the gateway: common-format
 * chunks → CommonToResponsesStep → SSE text (push + encode), the per-chunk work the
 * /v1/responses route adds for a translated kind. Reports µs per event (target ≤ 10 µs,
 * issue 10) for a text stream and a tool-call stream, with a short request and with the
 * recorded Codex request (39 kB of tools, echoed in three lifecycle events per response, as
 * OpenAI does). `npm run bench` runs it after the scenarios (section "responses translation");
 * alone: `node bench/responses-translate.ts [streams] [chunksPerStream]`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ChatCompletionChunk } from '../lib/common/chat.ts';
import { CommonToResponsesStep } from '../protocols/openai-responses/from-common-step.ts';
import { encodeResponsesEvent } from '../protocols/openai-responses/encode-event.ts';
import { ToolNames } from '../protocols/openai-responses/map-tools.ts';
import type { ResponsesRequest } from '../protocols/openai-responses/types.ts';

/** One measured case. */
export interface TranslateResult {
  /** `text` or `tool call`, with `short` or `codex` request body. */
  name: string;
  streams: number;
  eventsPerStream: number;
  /** Mean CPU-bound time per event, µs (push + SSE encode). */
  usPerEvent: number;
}

const chunk = (delta: ChatCompletionChunk['choices'][0]['delta'], finish: string | null = null): ChatCompletionChunk => ({
  id: 'chatcmpl-bench',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'bench',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

function textChunks(n: number): ChatCompletionChunk[] {
  return [
    chunk({ role: 'assistant', content: '' }),
    ...Array.from({ length: n }, (_, i) => chunk({ content: ` word${i}` })),
    chunk({}, 'stop'),
    { ...chunk({}), choices: [], usage: { prompt_tokens: 12, completion_tokens: n, total_tokens: 12 + n } },
  ];
}

function toolChunks(n: number): ChatCompletionChunk[] {
  return [
    chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
    ...Array.from({ length: n }, (_, i) => chunk({ tool_calls: [{ index: 0, function: { arguments: i === 0 ? '{"city":"' : 'x' } }] })),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"}' } }] }),
    chunk({}, 'tool_calls'),
  ];
}

const SHORT: ResponsesRequest = { model: 'bench', input: 'Say hello.', stream: true };

function codexBody(): ResponsesRequest {
  const url = new URL('../test/fixtures/responses/codex-0.169-request.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { body: ResponsesRequest }).body;
}

function once(chunks: ChatCompletionChunk[], body: ResponsesRequest, toolNames: ToolNames): number {
  const m = new CommonToResponsesStep({ body, requestModel: 'bench', toolNames });
  let events = 0;
  let bytes = 0;
  for (const c of chunks)
    for (const e of m.push(c)) {
      bytes += encodeResponsesEvent(e).length;
      events++;
    }
  for (const e of m.end()) {
    bytes += encodeResponsesEvent(e).length;
    events++;
  }
  return bytes > 0 ? events : 0;
}

/** Runs every case: `streams` streams of `perStream` chunks each (after 200 warm-up streams). */
export function measureTranslate(streams = 2000, perStream = 100): TranslateResult[] {
  const toolNames = new ToolNames();
  const out: TranslateResult[] = [];
  const bodies: Array<[string, ResponsesRequest, number]> = [
    ['short', SHORT, streams],
    ['codex', codexBody(), Math.max(1, Math.round(streams / 4))],
  ];
  for (const [bodyName, body, n] of bodies) {
    for (const [name, chunks] of [
      ['text', textChunks(perStream)],
      ['tool call', toolChunks(perStream)],
    ] as const) {
      for (let i = 0; i < 200; i++) once(chunks, body, toolNames);
      let events = 0;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) events += once(chunks, body, toolNames);
      out.push({ name: `${name}, ${bodyName} request`, streams: n, eventsPerStream: events / n, usPerEvent: ((performance.now() - t0) * 1000) / events });
    }
  }
  return out;
}

/** The report section. */
export function formatTranslate(results: TranslateResult[]): string {
  return `responses translation (in-process: chat chunks → Responses events → SSE text; target ≤ 10 µs per event)\n${results.map((r) => `  ${r.name.padEnd(26)} ${String(r.streams).padStart(5)} streams × ${r.eventsPerStream} events: ${r.usPerEvent.toFixed(2)} µs per event`).join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(formatTranslate(measureTranslate(Number(process.argv[2] ?? 2000), Number(process.argv[3] ?? 100))));
}
