/**
 * `GET /v1/otel/spans`: the spans gw exported last, as plain JSON, for the console's trace
 * view (a waterfall) and for a look without a trace backend. Grouped by trace, newest trace
 * first; `?trace_id=` picks one trace, `?limit=` caps the number of traces (default 20).
 *
 * The answer is bounded whatever the spans hold (ANSWER_MAX_CHARS): traces that would take it
 * past the bound are left out, newest kept, and counted in `x-gw-traces-omitted`. Spans keep
 * bounded attributes (bounded.ts, content.ts), so this takes a recent list grown large
 * (`recent_spans`, `capture_content` with long texts), never a single request.
 */
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { badRequest } from 'gw/plugin';

/** One span as the route answers it. */
export interface SpanJson {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  /** `server`, `client`, `internal`… */
  kind: string;
  /** Start, epoch ms. */
  start_ms: number;
  duration_ms: number;
  /** `unset`, `ok` or `error`, and the error's message. */
  status: string;
  status_message?: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; time_ms: number; attributes: Record<string, unknown> }>;
}

const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'];
/** The longest answer, characters: far below V8's longest string (about 2^29), a few seconds for a browser to parse. */
export const ANSWER_MAX_CHARS = 32 * 1_048_576;
const STATUS = ['unset', 'ok', 'error'];
const HEX32 = /^[0-9a-f]{32}$/;

/** The query: `trace_id` (32 hex digits) and `limit` (traces, 1–500). @throws 400 naming the parameter. */
export function parseSpanQuery(q: Record<string, string | string[] | undefined>): { traceId?: string; limit: number } {
  const id = typeof q.trace_id === 'string' ? q.trace_id : undefined;
  if (id !== undefined && !HEX32.test(id)) throw badRequest('trace_id: expected 32 lower-case hex digits', 'trace_id', id);
  const raw = typeof q.limit === 'string' ? q.limit : undefined;
  const limit = raw === undefined ? 20 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw badRequest('limit: expected an integer from 1 to 500', 'limit', raw);
  return { traceId: id, limit };
}

/** `spans` (oldest first) as traces, newest trace first, each trace's spans by start time. */
export function tracesOf(spans: readonly ReadableSpan[], q: { traceId?: string; limit: number }): Array<{ trace_id: string; spans: SpanJson[] }> {
  const byTrace = new Map<string, SpanJson[]>();
  for (let i = spans.length - 1; i >= 0; i--) {
    const s = spans[i]!;
    const id = s.spanContext().traceId;
    if (q.traceId !== undefined && id !== q.traceId) continue;
    let list = byTrace.get(id);
    if (list === undefined) {
      if (byTrace.size >= q.limit) continue;
      byTrace.set(id, (list = []));
    }
    list.push(toJson(s));
  }
  const out: Array<{ trace_id: string; spans: SpanJson[] }> = [];
  for (const [trace_id, list] of byTrace) out.push({ trace_id, spans: list.sort((a, b) => a.start_ms - b.start_ms) });
  return out;
}

/** The route's answer: `tracesOf` as JSON text of at most `maxChars`, and how many traces did not fit. */
export function spansAnswer(
  spans: readonly ReadableSpan[],
  q: { traceId?: string; limit: number },
  maxChars = ANSWER_MAX_CHARS,
): { text: string; omitted: number } {
  const parts: string[] = [];
  let size = 2;
  let omitted = 0;
  for (const trace of tracesOf(spans, q)) {
    let text: string | undefined;
    if (omitted === 0)
      try {
        text = JSON.stringify(trace);
      } catch {
        // past V8's longest string: this trace alone could never be answered
      }
    if (text === undefined || size + text.length + 1 > maxChars) {
      omitted++;
      continue;
    }
    parts.push(text);
    size += text.length + 1;
  }
  return { text: `[${parts.join(',')}]`, omitted };
}

function toJson(s: ReadableSpan): SpanJson {
  const c = s.spanContext();
  const j: SpanJson = {
    trace_id: c.traceId,
    span_id: c.spanId,
    parent_span_id: s.parentSpanContext?.spanId ?? null,
    name: s.name,
    kind: KINDS[s.kind] ?? String(s.kind),
    start_ms: hrTimeToMilliseconds(s.startTime),
    duration_ms: hrTimeToMilliseconds(s.duration),
    status: STATUS[s.status.code] ?? String(s.status.code),
    attributes: { ...s.attributes },
    events: s.events.map((e) => ({ name: e.name, time_ms: hrTimeToMilliseconds(e.time), attributes: { ...e.attributes } })),
  };
  if (s.status.message) j.status_message = s.status.message;
  return j;
}
