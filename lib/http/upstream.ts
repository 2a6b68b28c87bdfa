/**
 * Outbound HTTP: the gateway's undici Agent, timeouts per call, transport failures as
 * GatewayErrors (undici's advice: `request`, `pipelining: 1`, always consume or destroy a body).
 */
import { Agent, errors, request, type Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { UPSTREAM_CONNECTION_LOST, UPSTREAM_MALFORMED, UPSTREAM_TIMEOUT, UPSTREAM_TOO_LARGE, UPSTREAM_UNREACHABLE } from './errors.ts';
import { GatewayError } from '../../core/errors.ts';
import { redactUrl } from '../redact.ts';

/** The gateway's pool, uncapped: a hidden cap queues requests unseen behind streams; `max_connections` is a visible one. */
export function createAgent(): Agent {
  return new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, pipelining: 1, connections: null });
}

/** Options of one upstream call. */
export interface UpstreamCall {
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Time to response headers and longest gap between body chunks, ms. */
  timeoutMs: number;
  /** Provider name, for errors and logs. */
  provider: string;
  log: Logger;
  /** The gateway's pool. */
  dispatcher: Dispatcher;
}

export type UpstreamResponse = Dispatcher.ResponseData;

/**
 * Sends one request upstream and returns once headers arrive (any status).
 * @throws GatewayError 504 on timeout, 502 when the upstream is unreachable; rethrows the
 *   abort reason when `signal` fired (the client went away).
 */
export async function callUpstream(url: string, call: UpstreamCall): Promise<UpstreamResponse> {
  const t0 = performance.now();
  try {
    const res = await request(url, {
      dispatcher: call.dispatcher,
      method: call.method ?? 'POST',
      headers: call.headers,
      body: call.body,
      signal: call.signal,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
    if (call.log.isLevelEnabled('info')) {
      call.log.info(
        { provider: call.provider, method: call.method ?? 'POST', url: redactUrl(url), status: res.statusCode, ms: round(performance.now() - t0) },
        'provider call',
      );
    }
    return res;
  } catch (err) {
    const mapped = mapTransportError(err, call.provider, url, call.timeoutMs, call.signal);
    call.log.info({ provider: call.provider, url: redactUrl(url), err: mapped.message, ms: round(performance.now() - t0) }, 'provider call failed');
    throw mapped;
  }
}

/**
 * A transport failure as a GatewayError; the abort reason itself when the caller aborted.
 */
export function mapTransportError(
  err: unknown,
  provider: string,
  url: string,
  timeoutMs: number,
  signal?: AbortSignal,
  phase: 'connect' | 'body' = 'connect',
): Error {
  if (err instanceof GatewayError) return err;
  if (signal?.aborted) return signal.reason instanceof Error ? signal.reason : new Error('aborted');
  if (err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError || err instanceof errors.ConnectTimeoutError) {
    return UPSTREAM_TIMEOUT({ provider, seconds: timeoutMs / 1000, url: redactUrl(url) }, { provider, cause: err });
  }
  const reason = (err as NodeJS.ErrnoException).code ?? (err as { cause?: NodeJS.ErrnoException }).cause?.code ?? (err as Error).message;
  // the upstream answered, then its connection broke: not an unreachable host. Before any
  // byte reached the client this is retried like a 5xx; after, it ends the stream with an error event.
  if (phase === 'body') return UPSTREAM_CONNECTION_LOST({ provider, reason }, { provider, cause: err });
  return UPSTREAM_UNREACHABLE({ provider, reason, url: redactUrl(url) }, { provider, cause: err });
}

/**
 * Reads a whole upstream body as text, at most `maxBytes` of it.
 * @throws GatewayError 504/502 when the body stalls or breaks, 502 `upstream_too_large`
 *   past `maxBytes` (the rest is not read: the connection is dropped).
 */
export async function readBody(
  res: UpstreamResponse,
  provider: string,
  url: string,
  timeoutMs: number,
  signal?: AbortSignal,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<string> {
  const declared = Number(res.headers['content-length']);
  if (declared > maxBytes) {
    res.body.destroy();
    throw UPSTREAM_TOO_LARGE({ provider, what: 'a body', limit: maxBytes }, { provider });
  }
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.body.destroy();
        throw UPSTREAM_TOO_LARGE({ provider, what: 'a body', limit: maxBytes }, { provider });
      }
      parts.push(chunk as Buffer);
    }
  } catch (err) {
    throw mapTransportError(err, provider, url, timeoutMs, signal, 'body');
  }
  return parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts, size).toString('utf8');
}

/** Longest wait for the rest of a body whose stream already said it is complete. */
const DRAIN_MS = 2_000;

/** Lets go of a stream's body: drained for reuse when `complete` (within DRAIN_MS), else destroyed. */
export function releaseBody(res: UpstreamResponse, complete: boolean): void {
  const body = res.body;
  if (body.destroyed) return;
  // destroying an unfinished body emits its abort as 'error': nobody else listens any more
  body.on('error', ignore);
  if (!complete) {
    body.destroy();
    return;
  }
  const timer = setTimeout(() => body.destroy(), DRAIN_MS);
  timer.unref();
  body.once('close', () => clearTimeout(timer));
  body.resume();
}

function ignore(): void {}

/** Parses an upstream JSON body, else 502 naming the provider. */
export function parseUpstreamJson<T>(text: string, provider: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw UPSTREAM_MALFORMED({ provider, what: `a malformed JSON body: ${snippet(text)}` }, { provider });
  }
}

/** First 200 characters of a body, for error messages. */
export function snippet(text: string): string {
  const t = text.trim();
  return t.length > 200 ? `${t.slice(0, 200)}…` : t || '(empty body)';
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
