/**
 * Canned upstream answers for the bench, built from recorded wire fixtures in test/fixtures/
 * so every byte has the shape a real vendor sends. Streams carry `TEXT_PIECES` text deltas,
 * which a client sees as 20 common-format chunks (role, 18 contents, finish).
 */
import { readFileSync } from 'node:fs';

const FIXTURES = new URL('../test/fixtures/', import.meta.url);

/** Text deltas per canned stream. */
export const TEXT_PIECES = 18;
/** Chunks a common-format client receives per canned stream (without the usage chunk). */
export const CLIENT_CHUNKS = TEXT_PIECES + 2;

function fixture(path: string): string {
  return readFileSync(new URL(path, FIXTURES), 'utf8');
}

/** `data:` payloads of an SSE fixture, in order (`[DONE]` excluded). */
export function sseData(text: string): string[] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => l.slice(6));
}

function piece(i: number): string {
  return i === 0 ? 'Hello' : ` word${i}`;
}

/** The canned bodies the upstream serves, each a ready-to-write string. */
export interface Payloads {
  /** OpenAI non-streaming completion (openai/spec-examples/chat.default.response.json, verbatim). */
  openaiJson: string;
  /** OpenAI SSE without and with the trailing usage chunk, each ending in `data: [DONE]`. */
  openaiSse: string[];
  openaiSseWithUsage: string[];
  /** Anthropic Messages non-streaming body and SSE events (anthropic-text.json, basic.sse). */
  anthropicJson: string;
  anthropicSse: string[];
  /** Gemini generateContent body and `alt=sse` events, CRLF-framed as the real API sends (google-text.*). */
  geminiJson: string;
  geminiSse: string[];
  /**
   * A native Responses stream (what OpenAI sends for POST /v1/responses), from the last
   * recorded stream of responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt
   * with `TEXT_PIECES` text deltas: 26 events, `event:` lines as OpenAI frames them; and the
   * Response of its `response.completed` as the non-streaming body.
   */
  responsesSse: string[];
  responsesJson: string;
}

/**
 * An OpenAI chat stream of `buildPayloads` cut to `writes` writes: the role chunk, the first
 * `writes - 2` text chunks, then the finish chunk, the usage chunk (if any) and `[DONE]` as
 * one last write. A client sees `writes + 1` `data:` frames (one more with the usage chunk).
 * @throws when `writes` is below 2 or above the stream's length.
 */
export function shortenOpenaiStream(events: string[], writes: number): string[] {
  if (!Number.isInteger(writes) || writes < 2 || writes > TEXT_PIECES + 2) throw new Error(`stream writes must be 2..${TEXT_PIECES + 2}, got ${writes}`);
  return [...events.slice(0, writes - 1), events.slice(1 + TEXT_PIECES).join('')];
}

/** Builds every payload from the fixtures. */
export function buildPayloads(): Payloads {
  const oa = sseData(fixture('openai/openai-node/chat.stream.include-usage.sse')).map(
    (d) => JSON.parse(d) as Record<string, unknown> & { choices: Array<Record<string, unknown>> },
  );
  const role = oa[0]!;
  const content = oa.find((c) => (c.choices[0]?.delta as { content?: string } | undefined)?.content && c !== role)!;
  const finish = oa.find((c) => c.choices[0]?.finish_reason)!;
  const usage = oa.find((c) => c.choices.length === 0 && c.usage)!;
  const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
  const openaiSse = [frame(role)];
  for (let i = 0; i < TEXT_PIECES; i++) {
    openaiSse.push(frame({ ...content, choices: [{ ...content.choices[0], delta: { content: piece(i) } }] }));
  }
  openaiSse.push(frame(finish));
  const openaiSseWithUsage = [...openaiSse, frame(usage), 'data: [DONE]\n\n'];
  openaiSse.push('data: [DONE]\n\n');

  // Anthropic: message_start, content_block_start, ping, N deltas, the closing events
  const an = fixture('anthropic/anthropic-sdk-typescript/basic.sse')
    .split(/\n\n/)
    .filter((e) => e.trim() !== '');
  const delta = an.find((e) => e.startsWith('event: content_block_delta'))!;
  const deltaObj = JSON.parse(delta.slice(delta.indexOf('data: ') + 6)) as { delta: { text: string } };
  const head = an.slice(0, an.indexOf(delta));
  const tail = an.slice(an.findIndex((e) => e.startsWith('event: content_block_stop')));
  const anthropicSse = [...head.map((e) => `${e}\n\n`)];
  for (let i = 0; i < TEXT_PIECES; i++) {
    anthropicSse.push(`event: content_block_delta\ndata: ${JSON.stringify({ ...deltaObj, delta: { ...deltaObj.delta, text: piece(i) } })}\n\n`);
  }
  anthropicSse.push(...tail.map((e) => `${e}\n\n`));

  // Gemini: one event per text part; the last carries finishReason and the usage
  const ge = sseData(fixture('gemini/vercel-ai/google-text.sse')).map(
    (d) => JSON.parse(d) as { candidates: Array<Record<string, unknown>>; usageMetadata: unknown },
  );
  const g0 = ge[0]!;
  const last = ge[ge.length - 1]!;
  const geminiSse: string[] = [];
  for (let i = 0; i < TEXT_PIECES; i++) {
    const end = i === TEXT_PIECES - 1;
    const cand = { ...g0.candidates[0], content: { parts: [{ text: piece(i) }], role: 'model' }, ...(end ? { finishReason: 'STOP' } : {}) };
    geminiSse.push(`data: ${JSON.stringify({ ...g0, candidates: [cand], usageMetadata: end ? last.usageMetadata : g0.usageMetadata })}\r\n\r\n`);
  }

  // Responses: created, in_progress, item and part added, N deltas, the closing events
  const rs = fixture('responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt')
    .split('\n')
    .slice(94, 110)
    .map((l) => JSON.parse(l) as Record<string, any>);
  const text = Array.from({ length: TEXT_PIECES }, (_, i) => piece(i)).join('');
  const rDelta = rs.find((e) => e.type === 'response.output_text.delta')!;
  const events: Array<Record<string, any>> = [...rs.slice(0, rs.indexOf(rDelta))];
  for (let i = 0; i < TEXT_PIECES; i++) events.push({ ...rDelta, delta: piece(i) });
  for (const e of rs.slice(rs.findIndex((x) => x.type === 'response.output_text.done'))) {
    if (e.type === 'response.output_text.done') events.push({ ...e, text });
    else if (e.type === 'response.content_part.done') events.push({ ...e, part: { ...e.part, text } });
    else if (e.type === 'response.output_item.done') events.push({ ...e, item: { ...e.item, content: [{ ...e.item.content[0], text }] } });
    else events.push({ ...e, response: { ...e.response, output: [{ ...e.response.output[0], content: [{ ...e.response.output[0].content[0], text }] }] } });
  }
  const responsesSse = events.map((e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`);
  const responsesJson = JSON.stringify(events.at(-1)!.response);

  return {
    responsesSse,
    responsesJson,
    openaiJson: fixture('openai/spec-examples/chat.default.response.json'),
    openaiSse,
    openaiSseWithUsage,
    anthropicJson: fixture('anthropic/vercel-ai/anthropic-text.json'),
    anthropicSse,
    geminiJson: fixture('gemini/vercel-ai/google-text.json'),
    geminiSse,
  };
}
