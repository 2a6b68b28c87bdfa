/**
 * Usage and spend over time: hourly buckets (`store.bucketIncr`, one record per hour and series,
 * a series a JSON array of its dimensions) served as `?bucket=&group_by=&from=&to=` series;
 * day buckets are summed UTC hours, `group_by=tag:<name>` groups keys by a tag.
 */
import type { Context } from 'koa';
import { defineError, type GatewayError } from '../core/errors.ts';
import { quoted } from '../core/error-codes.ts';
import { parseDateTime } from '../lib/dates.ts';
import { own } from '../lib/own.ts';
import type { GatewayInfo } from '../lib/gateway-info.ts';
import type { Store } from '../lib/store/types.ts';

/** A series query parameter gw cannot read (the parameter named in `param`). */
export const INVALID_QUERY = defineError<string>('invalid_query', 400, (m) => m);
/** A series asked of an extension whose `retention_days` is 0. */
export const SERIES_DISABLED = defineError<{ what: string; extension: string }>(
  'series_disabled',
  400,
  (p) => `${p.what} over time is off: [extensions.${p.extension}] retention_days = 0`,
);

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** Output bucket sizes, ms. */
const BUCKET_MS = { minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS } as const;
/** Store key of the hourly buckets (relative to the extension's namespace). */
export const BUCKETS_KEY = 'h';

/** A dimension a series can be grouped by (`mcp_server`, `tool`: MCP tools/call); tags are `tag:<name>`. */
export type Dimension = 'key' | 'model' | 'provider' | 'mcp_server' | 'tool';

/** A parsed series query. */
export interface SeriesQuery {
  bucket: 'minute' | 'hour' | 'day';
  /** Output fields, in order: dimensions and `tag:<name>`s. */
  groupBy: string[];
  /** Bucket starts in [from, to), epoch ms; `from` aligned to the bucket. */
  from: number;
  to: number;
}

const SERIES_PARAMS = ['bucket', 'group_by', 'from', 'to'] as const;
const TAG = /^tag:([A-Za-z0-9_.-]{1,64})$/;

/** True when the query asks for a series (any of bucket, group_by, from, to); without them the route keeps its lifetime shape. */
export function wantsSeries(ctx: Context): boolean {
  return SERIES_PARAMS.some((p) => ctx.query[p] !== undefined);
}

/** The 400 for query parameter `name`, `got` quoted to the client only. */
export function badQuery(name: string, rule: string, got?: string): GatewayError {
  const message = `query parameter '${name}' ${rule}`;
  if (got === undefined) return INVALID_QUERY(message, { param: name });
  return INVALID_QUERY(`${message}; got ${quoted(got)}`, { param: name, logMessage: message });
}

function one(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name];
  if (Array.isArray(v)) throw badQuery(name, 'given more than once');
  return v;
}

/** A query time: RFC 3339, a UTC date or epoch ms, on the calendar. @throws GatewayError 400 naming the parameter. */
export function parseTime(name: string, v: string): number {
  const t = /^\d{1,15}$/.test(v) ? Number(v) : parseDateTime(v);
  if (typeof t === 'string') {
    const shape = t.startsWith('expected');
    throw badQuery(
      name,
      shape ? 'must be an RFC 3339 time (2026-01-31T10:00:00Z), a date (2026-01-31) or epoch milliseconds' : 'must be a real calendar date (and time of day)',
      v,
    );
  }
  return t;
}

/**
 * A series query: `group_by` every dimension, `to` now, `from` a day, 30 days or an hour back (within
 * retention) by default; `bucket=minute` needs `minuteRetentionMs`. @throws GatewayError 400 naming the parameter.
 */
export function parseSeriesQuery(ctx: Context, dims: readonly Dimension[], retentionMs: number, now = Date.now(), minuteRetentionMs?: number): SeriesQuery {
  const b = one(ctx, 'bucket') ?? 'hour';
  const allowed = minuteRetentionMs === undefined ? "'hour' or 'day'" : "'minute', 'hour' or 'day'";
  if (b !== 'hour' && b !== 'day' && (b !== 'minute' || minuteRetentionMs === undefined)) {
    throw badQuery('bucket', `must be ${allowed}`, b);
  }
  const size = BUCKET_MS[b];
  if (b === 'minute') retentionMs = minuteRetentionMs!;
  const g = one(ctx, 'group_by');
  const groupBy: string[] = [];
  for (const part of g === undefined ? dims : g.split(',').map((s) => s.trim())) {
    if (!(dims as readonly string[]).includes(part) && !TAG.test(part)) {
      throw badQuery('group_by', `takes ${dims.join(', ')} or tag:<name> (comma-separated)`, part);
    }
    if (!groupBy.includes(part)) groupBy.push(part);
  }
  const toRaw = one(ctx, 'to');
  const fromRaw = one(ctx, 'from');
  const to = Math.min(toRaw === undefined ? now : parseTime('to', toRaw), now + size);
  let from = fromRaw === undefined ? to - (b === 'hour' ? DAY_MS : b === 'day' ? 30 * DAY_MS : HOUR_MS) : parseTime('from', fromRaw);
  if (!(from < to)) throw badQuery('from', "must be before 'to'");
  from = Math.max(from, now - retentionMs - size);
  from -= from % size;
  return { bucket: b, groupBy, from: Math.max(0, from), to };
}

/** How a series' JSON dimensions map to names, and a bucket's counters to the output fields. */
export interface SeriesShape {
  dims: readonly Dimension[];
  /** Output fields of summed counters, from a series' counter record (missing fields are 0); null: a ratio without a base. */
  fields(sum: Record<string, number>): Record<string, number | null>;
}

/** Where a series' buckets are: the store key and the bucket size `bucketIncr` used there. */
export interface SeriesSource {
  key: string;
  bucketMs: number;
}

/** The query's buckets (at BUCKETS_KEY by default) summed per bucket and group: `{bucket_start, <group>…, <fields>…}`, idle ones absent. */
export async function readSeries(
  store: Store,
  q: SeriesQuery,
  shape: SeriesShape,
  gateway: GatewayInfo,
  source: SeriesSource = { key: BUCKETS_KEY, bucketMs: HOUR_MS },
): Promise<Array<Record<string, unknown>>> {
  const size = BUCKET_MS[q.bucket];
  const groups = new Map<string, { start: number; group: Array<string | null>; sum: Record<string, number> }>();
  const tagCache = new Map<string, Readonly<Record<string, string>> | undefined>();
  const tagsOf = (key: string) => {
    if (!tagCache.has(key)) tagCache.set(key, gateway.keyTags?.(key));
    return tagCache.get(key);
  };
  const keyAt = shape.dims.indexOf('key');
  for await (const row of store.buckets(source.key, q.from, q.to, source.bucketMs)) {
    let dims: string[];
    try {
      dims = JSON.parse(row.series) as string[];
    } catch {
      continue; // not written by us
    }
    const group = q.groupBy.map((g): string | null => {
      const tag = TAG.exec(g);
      if (tag) return own(tagsOf(dims[keyAt] ?? ''), tag[1]!) ?? null;
      return dims[shape.dims.indexOf(g as Dimension)] ?? '';
    });
    const start = row.start - (row.start % size);
    const id = `${start}\u0000${JSON.stringify(group)}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { start, group, sum: {} }));
    for (const f in row.counters) g.sum[f] = (g.sum[f] ?? 0) + row.counters[f]!;
  }
  const cmp = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  return [...groups.values()]
    .sort((a, b) => a.start - b.start || a.group.reduce((c, v, i) => c || cmp(v, b.group[i]!), 0))
    .map((g) => {
      const out: Record<string, unknown> = { bucket_start: new Date(g.start).toISOString() };
      for (let i = 0; i < q.groupBy.length; i++) out[q.groupBy[i]!] = g.group[i];
      return Object.assign(out, shape.fields(g.sum));
    });
}
