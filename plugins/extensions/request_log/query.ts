/**
 * GET /v1/requests filters: `limit`, `key`, `model`, `provider`, `route`, `status`, `since`.
 * Every bad value is a 400 naming the parameter.
 */
import type { Context } from 'koa';
import { badQuery, parseTime } from 'gw/plugin';
import type { LogEntry } from './entry.ts';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/**
 * `since` looks at when requests ended; entries are in the order they ended on each
 * instance, so the scan stops at the first entry that ended this long before `since`
 * (instances' clocks may differ by that much on a shared store).
 */
export const SKEW_MS = 2000;

/** A parsed query. */
export interface LogQuery {
  limit: number;
  key?: string;
  model?: string;
  provider?: string;
  route?: string;
  /** Exact status, or a class: [lo, hi). */
  status?: { lo: number; hi: number };
  /** Epoch ms: only requests that ended at or after it. */
  since?: number;
}

function one(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name];
  if (Array.isArray(v)) throw badQuery(name, 'given more than once');
  return v === '' ? undefined : v;
}

/** `502` → [502, 503); `5xx` → [500, 600); `error` → [400, 600); `ok` → [100, 400). */
function statusRange(v: string): { lo: number; hi: number } {
  if (/^[1-5]\d\d$/.test(v)) return { lo: Number(v), hi: Number(v) + 1 };
  const m = /^([1-5])xx$/i.exec(v);
  if (m) return { lo: Number(m[1]) * 100, hi: Number(m[1]) * 100 + 100 };
  if (v === 'error') return { lo: 400, hi: 600 };
  if (v === 'ok') return { lo: 100, hi: 400 };
  throw badQuery('status', "takes a status (502), a class (4xx, 5xx), 'error' or 'ok'", v);
}

/** @throws GatewayError 400 naming the parameter. */
export function parseLogQuery(ctx: Context): LogQuery {
  const q: LogQuery = { limit: DEFAULT_LIMIT };
  const limit = one(ctx, 'limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) throw badQuery('limit', `must be a whole number from 1 to ${MAX_LIMIT}`, limit);
    q.limit = Number(limit);
  }
  for (const f of ['key', 'model', 'provider', 'route'] as const) {
    const v = one(ctx, f);
    if (v !== undefined) q[f] = v;
  }
  const status = one(ctx, 'status');
  if (status !== undefined) q.status = statusRange(status);
  const since = one(ctx, 'since');
  if (since !== undefined) q.since = parseTime('since', since);
  return q;
}

/** When the request ended, epoch ms. */
export function endOf(e: LogEntry): number {
  return Date.parse(e.time) + e.latency_ms;
}

/** Does `e` pass the filters (`since` included)? `model` matches the requested or the served model. */
export function matches(q: LogQuery, e: LogEntry): boolean {
  if (q.key !== undefined && e.key !== q.key) return false;
  if (q.model !== undefined && e.model !== q.model && e.served_model !== q.model) return false;
  if (q.provider !== undefined && e.provider !== q.provider) return false;
  if (q.route !== undefined && e.route !== q.route) return false;
  if (q.status && (e.status < q.status.lo || e.status >= q.status.hi)) return false;
  if (q.since !== undefined && endOf(e) < q.since) return false;
  return true;
}
