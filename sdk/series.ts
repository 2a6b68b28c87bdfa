/**
 * Usage and spend over time, as the usage and budget extensions serve them (any extension
 * may, through `gw/plugin`): hourly buckets in the store (`store.bucketIncr`, one record per
 * (hour, series)), read back as a series by `GET /v1/usage|budget?bucket=hour|day&group_by=…
 * &from=…&to=…` (docs/design.md "Operator console").
 *
 * A series is identified by a JSON array of its dimensions (`["<key>", "<model>",
 * "<provider>"]` for usage, `["<key>", "<model>"]` for budget). Day buckets are UTC days,
 * summed from the hours at read time. `group_by=tag:<name>` groups keys by one of their
 * tags, read at query time from `GatewayInfo.keyTags` (keys carry no tags before the
 * virtual-keys issue; until then every key falls in the `null` group).
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

/**
 * The 400 for query parameter `name`: `query parameter '<name>' <rule>; got "<value>"`, the
 * value quoted as every error quotes one (`quoted`: cut to 200 characters); logs and the
 * request log keep the sentence without it.
 */
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

/**
 * A time from the query: RFC 3339 (`2026-01-31T10:00:00Z`), a UTC date (`2026-01-31`) or
 * epoch ms; a date that is not on the calendar (`2026-02-30`) is refused, as everywhere.
 * @throws GatewayError 400 naming the parameter.
 */
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
 * Parses a series query. `group_by` defaults to every dimension of the series; `to`
 * defaults to now; `from` to 24 hours (hour buckets), 30 days (day buckets) or 60 minutes
 * (minute buckets) before `to`, and is never earlier than the retention allows.
 * `minuteRetentionMs`: the series also keeps minute buckets this long (`bucket=minute`
 * is refused without it).
 * @throws GatewayError 400 naming the parameter at fault.
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

/**
 * Reads the stored buckets in the query's range (by default the hourly ones at
 * BUCKETS_KEY) and sums them per output bucket and group. Entries: `{bucket_start (RFC
 * 3339), <group fields>…, <shape.fields>…}`, ordered by bucket then group; buckets without
 * traffic are absent.
 */
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
