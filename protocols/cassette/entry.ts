/**
 * A cassette entry: one upstream HTTP exchange gw made, as one JSON line of a `.jsonl` file
 * (an example: docs/record-replay.md, "The cassette"). Written by the recorder extension and
 * the replay kind's record modes; read by the replay kind and `gw cassette`. Version 1;
 * readers accept unknown fields (a later version's).
 */
import { z } from 'zod';

/** Version of the entry format written. */
export const CASSETTE_VERSION = 1;

/** One event of a recorded stream. */
export interface RecordedEvent {
  /** Wait before this event, ms: after the response headers for the first, after the previous event for the others. */
  delay_ms: number;
  /** The SSE `event:` field, when there was one. */
  event?: string;
  /** The SSE `data:` field, exactly as received (lines joined by `\n`). */
  data: string;
}

/** A transport failure: no answer, or an answer cut short. */
export interface RecordedError {
  /** `timeout` (no answer in time), `connect` (unreachable), `reset` (the connection broke). */
  kind: 'timeout' | 'connect' | 'reset';
  message: string;
}

/** The upstream's answer. Exactly one of `body`, `text`, `events` is set when it answered. */
export interface RecordedResponse {
  /** HTTP status; absent when the exchange failed before an answer (`error`). */
  status?: number;
  /** Response headers kept by the allow-list (headers.ts), lower-case names. */
  headers?: Record<string, string>;
  /** From the request to the response headers, ms. */
  delay_ms?: number;
  /** A JSON answer. */
  body?: unknown;
  /** Any other answer, as UTF-8 text. */
  text?: string;
  /** An SSE answer, event by event. */
  events?: RecordedEvent[];
  /** For `events`: false when the stream ended before the upstream finished it (cut, timed out, or the client left). */
  complete?: boolean;
  /** Why the exchange failed, when it did. */
  error?: RecordedError;
}

/** What the gateway request the exchange served was, when the exchange served one. */
export interface RecordedGw {
  /** The gateway request's id (`x-request-id`); every exchange of one request (retries) shares it. */
  request_id: string;
  /** The gateway route label (`chat`, `messages`, `responses`, `gemini`, `embeddings`, `count_tokens`…). */
  route?: string;
  /** The gateway key's name (never the key). */
  key?: string;
  /** The canonical model the attempt asked for. */
  model: string;
  /** 0 for a provider's first try, then its retries. */
  retry: number;
  /** The usage gw charged the request (OpenAI semantics), on the exchange that answered it. */
  usage?: Record<string, unknown>;
  /** What the request cost, USD (null: no price), on the exchange that answered it. */
  cost_usd?: number | null;
}

/** One recorded exchange. */
export interface CassetteEntry {
  v: number;
  /** Stable id (`e-` + 16 hex), kept by `gw cassette redact`. */
  id: string;
  /** When the request was sent, RFC 3339 with ms. */
  time: string;
  /** The provider (section name) and its kind. */
  provider: string;
  kind: string;
  /** The section's settings that shape its requests, secrets and origins left out (the replay kind builds the recorded kind from them). */
  upstream: Record<string, string | number | boolean>;
  /** `METHOD /path?allowed=query` (query parameters by an allow-list: route.ts). */
  route: string;
  request: {
    headers: Record<string, string>;
    /** The body as canonical JSON (keys sorted), secrets scrubbed; a non-JSON body as its text; null for none. */
    body: unknown;
    /** `sha256:` + hex of the canonical body text (what `match = "exact"` compares). */
    hash: string;
  };
  response: RecordedResponse;
  gw?: RecordedGw;
  /** From the request to the last byte (or the failure), ms. */
  duration_ms: number;
}

/** What a reader accepts as an entry (unknown fields kept). */
export const entrySchema = z.looseObject({
  v: z.number().int().min(1),
  id: z.string().min(1),
  time: z.string(),
  provider: z.string().min(1),
  kind: z.string().min(1),
  upstream: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  route: z.string().regex(/^[A-Z]+ \//, 'expected "METHOD /path"'),
  request: z.looseObject({ headers: z.record(z.string(), z.string()).default({}), body: z.unknown(), hash: z.string() }),
  response: z.looseObject({
    status: z.number().int().min(100).max(599).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    delay_ms: z.number().min(0).optional(),
    body: z.unknown().optional(),
    text: z.string().optional(),
    events: z.array(z.looseObject({ delay_ms: z.number().min(0), event: z.string().optional(), data: z.string() })).optional(),
    complete: z.boolean().optional(),
    error: z.looseObject({ kind: z.enum(['timeout', 'connect', 'reset']), message: z.string() }).optional(),
  }),
  gw: z
    .looseObject({
      request_id: z.string(),
      route: z.string().optional(),
      key: z.string().optional(),
      model: z.string(),
      retry: z.number().int().min(0),
      usage: z.record(z.string(), z.unknown()).optional(),
      cost_usd: z.number().nullable().optional(),
    })
    .optional(),
  duration_ms: z.number().min(0),
});
