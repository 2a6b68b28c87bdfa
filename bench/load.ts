/**
 * Closed-loop HTTP load with autocannon (each connection sends its next request when the
 * previous answer ended), latencies recorded per response at full precision.
 */
import autocannon from 'autocannon';
import { Samples, summarize } from './stats.ts';

/** One request shape to send, over and over. */
export interface Target {
  url: string;
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Body holds `[<id>]`, replaced by a fresh id per request. */
  idReplacement?: boolean;
}

/** What a load run measured. Latencies in ms, over 2xx answers only. */
export interface LoadResult {
  /** 2xx answers completed in the window. */
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  /** Connection errors, timeouts and non-2xx answers (any > 0 makes the run suspect). */
  errors: number;
  non2xx: number;
}

/**
 * Runs `connections` closed loops against `target` for `seconds`.
 * @throws when autocannon rejects its options.
 */
export async function runLoad(target: Target, connections: number, seconds: number): Promise<LoadResult> {
  const lat = new Samples();
  const t0 = performance.now();
  // sampleInt: autocannon notices the end of `duration` only at its next sample tick
  const inst = autocannon({
    url: target.url,
    method: target.method ?? 'POST',
    headers: target.headers,
    body: target.body,
    connections,
    duration: seconds,
    sampleInt: 50,
    timeout: 30,
    idReplacement: target.idReplacement,
  });
  inst.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) lat.push(ms);
  });
  const r = await inst;
  const elapsed = (performance.now() - t0) / 1000;
  const { p50, p99, mean } = summarize(lat);
  return { requests: lat.length, seconds: elapsed, rps: lat.length / elapsed, p50, p99, mean, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}
