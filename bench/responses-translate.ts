/**
 * Micro-benchmark of the translated Responses stream path without the gateway: common-format
 * chunks → ChunksToResponsesEvents → SSE text (push + encode), the per-chunk work the
 * /v1/responses route adds for a translated kind. Reports µs per event (target ≤ 10 µs,
 * issue 10). Run: `node bench/responses-translate.ts [streams] [chunksPerStream]`.
 */
import { readFileSync } from 'node:fs';
import type { ChatCompletionChunk } from '../core/format/chat.ts';
import { ChunksToResponsesEvents } from '../plugins/formats/openai-responses/chunks-to-events.ts';
import { encodeResponsesEvent } from '../plugins/formats/openai-responses/encode-event.ts';
import { ToolNames } from '../plugins/formats/openai-responses/map-tools.ts';
import type { ResponsesRequest } from '../plugins/formats/openai-responses/types.ts';

const streams = Number(process.argv[2] ?? 2000);
const perStream = Number(process.argv[3] ?? 100);

const chunk = (delta: ChatCompletionChunk['choices'][0]['delta'], finish: string | null = null): ChatCompletionChunk =>
  ({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] });
const text = [chunk({ role: 'assistant', content: '' }), ...Array.from({ length: perStream }, (_, i) => chunk({ content: ` word${i}` })), chunk({}, 'stop'),
  { ...chunk({}), choices: [], usage: { prompt_tokens: 12, completion_tokens: perStream, total_tokens: 12 + perStream } }];
const tools = [chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
  ...Array.from({ length: perStream }, (_, i) => chunk({ tool_calls: [{ index: 0, function: { arguments: i === 0 ? '{"city":"' : 'x' } }] })),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"}' } }] }), chunk({}, 'tool_calls')];
/** `BENCH_BODY=codex`: the recorded Codex request (30 kB of tools, echoed in three lifecycle events per response). */
const body = process.env.BENCH_BODY === 'codex'
  ? (JSON.parse(readFileSync(new URL('../test/fixtures/responses/codex-0.169-request.json', import.meta.url), 'utf8')) as { body: ResponsesRequest }).body
  : { model: 'bench', input: 'Say hello.', stream: true };
const toolNames = new ToolNames();

function once(chunks: ChatCompletionChunk[]): { events: number; bytes: number } {
  const m = new ChunksToResponsesEvents({ body, requestModel: 'bench', toolNames });
  let events = 0;
  let bytes = 0;
  for (const c of chunks) for (const e of m.push(c)) { bytes += encodeResponsesEvent(e).length; events++; }
  for (const e of m.end()) { bytes += encodeResponsesEvent(e).length; events++; }
  return { events, bytes };
}

for (const [name, chunks] of [['text', text], ['tool call', tools]] as const) {
  for (let i = 0; i < 200; i++) once(chunks);
  let events = 0;
  const t0 = performance.now();
  for (let i = 0; i < streams; i++) events += once(chunks).events;
  const us = ((performance.now() - t0) * 1000) / events;
  console.log(`${name.padEnd(9)} ${streams} streams × ${events / streams} events: ${us.toFixed(2)} µs per event (push + SSE encode)`);
}
