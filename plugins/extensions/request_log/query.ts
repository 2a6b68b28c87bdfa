/** GET /v1/requests filters; every bad value or unknown parameter is a 400 naming it and what it takes. */
import type { Context } from 'koa';
import { badQuery, parseTime } from 'gw/plugin';
import { own } from 'gw/plugin/format';
import type { LogEntry } from './entry.ts';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** The scan stops at the first entry that ended this long before `since` (instances' clocks differ on a shared store). */
export const SKEW_MS = 2000;
/** Longest `key`, `model`, `provider`, `route` value: the log keeps model names cut to 256 characters. */
const NAME_MAX = 256;
/** The key usage counts requests under when no key was accepted (the log's `key: null`). */
const UNAUTHENTICATED = '(unauthenticated)';
/** A tag filter: `<name>:<value>`, or `<name>:` for keys without that tag (names and values as key settings allow them). */
const TAG = /^([A-Za-z0-9_.-]{1,64}):(.{0,256})$/s;
/** gw's error codes (catalog codes, `http_<status>`) and upstreams' own: word characters. */
const ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/;
/** Request ids are what `x-request-id` accepts (core/app.ts): a search is a part of one. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const PARAMS = ['limit', 'key', 'model', 'provider', 'route', 'status', 'error_code', 'tag', 'request_id', 'since', 'until'] as const;

/** A parsed query. */
export interface LogQuery {
  limit: number;
  key?: string;
  model?: string;
  provider?: string;
  route?: string;
  /** Exact status, or a class: [lo, hi). */
  status?: { lo: number; hi: number };
  /** gw's error code as the entry carries it (`http_<status>` for a failure without one). */
  errorCode?: string;
  /** Requests of keys whose tag `name` is `value` at query time; `value` null: keys without that tag (and no key). */
  tag?: { name: string; value: string | null };
  /** Lower-cased part of a request id (case-insensitive search). */
  requestId?: string;
  /** Epoch ms: only requests that ended at or after it. */
  since?: number;
  /** Epoch ms: only requests that ended before it. */
  until?: number;
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
  for (const name in ctx.query) {
    if (!(PARAMS as readonly string[]).includes(name)) throw badQuery(name.slice(0, 64), `is not one of ${PARAMS.join(', ')}`);
  }
  const q: LogQuery = { limit: DEFAULT_LIMIT };
  const limit = one(ctx, 'limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) throw badQuery('limit', `must be a whole number from 1 to ${MAX_LIMIT}`, limit);
    q.limit = Number(limit);
  }
  for (const f of ['key', 'model', 'provider', 'route'] as const) {
    const v = one(ctx, f);
    if (v === undefined) continue;
    if (v.length > NAME_MAX) throw badQuery(f, `is at most ${NAME_MAX} characters`, v);
    q[f] = v;
  }
  const status = one(ctx, 'status');
  if (status !== undefined) q.status = statusRange(status);
  const code = one(ctx, 'error_code');
  if (code !== undefined) {
    if (!ERROR_CODE.test(code))
      throw badQuery('error_code', 'takes an error code (rate_limit_exceeded, http_502): 1-64 letters, digits, "_", "-" or "."', code);
    q.errorCode = code;
  }
  const tag = one(ctx, 'tag');
  if (tag !== undefined) {
    const m = TAG.exec(tag);
    if (!m) throw badQuery('tag', "takes '<name>:<value>' (team:search), or '<name>:' for keys without that tag", tag);
    q.tag = { name: m[1]!, value: m[2] === '' ? null : m[2]! };
  }
  const id = one(ctx, 'request_id');
  if (id !== undefined) {
    if (!REQUEST_ID.test(id)) throw badQuery('request_id', 'takes part of a request id: 1-128 letters, digits, ".", "_", ":" or "-"', id);
    q.requestId = id.toLowerCase();
  }
  const since = one(ctx, 'since');
  if (since !== undefined) q.since = parseTime('since', since);
  const until = one(ctx, 'until');
  if (until !== undefined) q.until = parseTime('until', until);
  if (q.since !== undefined && q.until !== undefined && !(q.since < q.until)) throw badQuery('until', "must be after 'since'");
  return q;
}

/** When the request ended, epoch ms. */
export function endOf(e: LogEntry): number {
  return Date.parse(e.time) + e.latency_ms;
}

/** A key's tags now (GatewayInfo.keyTags); undefined for a key that has none or no longer exists. */
export type TagsOf = (key: string) => Readonly<Record<string, string>> | undefined;

/** Whether `entry` passes the filters: `model` the requested or served one, `tag` through `tagsOf`. */
export function matches(q: LogQuery, e: LogEntry, tagsOf?: TagsOf): boolean {
  if (q.key !== undefined && e.key !== q.key && !(e.key === null && q.key === UNAUTHENTICATED)) return false;
  if (q.model !== undefined && e.model !== q.model && e.served_model !== q.model) return false;
  if (q.provider !== undefined && e.provider !== q.provider) return false;
  if (q.route !== undefined && e.route !== q.route) return false;
  if (q.status && (e.status < q.status.lo || e.status >= q.status.hi)) return false;
  if (q.errorCode !== undefined && e.error_code !== q.errorCode) return false;
  if (q.requestId !== undefined && !e.request_id.toLowerCase().includes(q.requestId)) return false;
  if (q.since !== undefined || q.until !== undefined) {
    const end = endOf(e);
    if (q.since !== undefined && end < q.since) return false;
    if (q.until !== undefined && end >= q.until) return false;
  }
  if (q.tag !== undefined) {
    const value = e.key === null ? undefined : own(tagsOf?.(e.key), q.tag.name);
    if (q.tag.value === null ? value !== undefined : value !== q.tag.value) return false;
  }
  return true;
}
