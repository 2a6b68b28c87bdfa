/**
 * Stream timing the load generator cannot give: time to first body byte (TTFB) and time to
 * the end of the stream, per request, with undici (the fast client; one pooled Agent).
 */
import { Agent, request } from 'undici';
import type { Target } from './load.ts';
import { Samples, summarize } from './stats.ts';

/** Stream timings in ms; `frames` = SSE `data:` frames per stream (mean). */
export interface StreamTiming {
  streams: number;
  concurrency: number;
  ttfbP50: number;
  ttfbP99: number;
  totalP50: number;
  totalP99: number;
  frames: number;
  errors: number;
  /** First failure, for the report. */
  firstError?: string;
}

const DATA = 'data: ';

/** SSE `data:` frames in a stream's text. */
export function countFrames(s: string): number {
  let n = 0;
  for (let i = s.indexOf(DATA); i !== -1; i = s.indexOf(DATA, i + DATA.length)) n++;
  return n;
}

/** Runs `streams` requests to `target`, `concurrency` at a time (1 = sequential). */
export async function timeStreams(target: Target, streams: number, concurrency: number): Promise<StreamTiming> {
  const agent = new Agent({ connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
  const ttfb = new Samples();
  const total = new Samples();
  let frames = 0;
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  async function worker(): Promise<void> {
    while (next < streams) {
      next++;
      const t0 = performance.now();
      try {
        const res = await request(target.url, { dispatcher: agent, method: target.method ?? 'POST', headers: target.headers, body: target.body });
        let first = true;
        let text = '';
        for await (const buf of res.body) {
          if (first) {
            ttfb.push(performance.now() - t0);
            first = false;
          }
          text += buf.toString();
        }
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
        total.push(performance.now() - t0);
        frames += countFrames(text);
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await agent.close();
  }
  const a = summarize(ttfb);
  const b = summarize(total);
  return {
    streams,
    concurrency,
    ttfbP50: a.p50,
    ttfbP99: a.p99,
    totalP50: b.p50,
    totalP99: b.p99,
    frames: total.length ? frames / total.length : 0,
    errors,
    firstError,
  };
}
