/**
 * `gw requests`: the request log (GET /v1/requests, request_log extension). A table oldest
 * first (the newest at the bottom, where --follow appends), or the API's JSON (newest
 * first; with --follow one JSON object per line). --follow polls every --interval ms with
 * `since` (the end of the newest entry seen) and prints each new entry once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError } from '../client/errors.ts';
import { adminClient } from '../client/http.ts';
import { printJson } from '../client/output.ts';

/** An entry as GET /v1/requests returns it (the fields the table shows). */
interface Entry {
  time: string;
  request_id: string;
  key: string | null;
  route: string;
  model: string | null;
  served_model: string | null;
  provider: string | null;
  status: number;
  attempts: number;
  latency_ms: number;
  ttfb_ms: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost_usd: number | null;
  cache_hit: boolean;
  error_code: string | null;
}

export interface RequestsOptions {
  limit?: number;
  key?: string;
  model?: string;
  provider?: string;
  route?: string;
  status?: string;
  errorCode?: string;
  tag?: string;
  requestId?: string;
  since?: string;
  until?: string;
  json?: boolean;
  follow?: boolean;
  interval?: number;
}

const notEnabled = 'the request_log extension is not enabled: add [extensions.request_log] to the gateway config';

/** Column: header, width (the last column is not padded), cell text. */
const COLUMNS: ReadonlyArray<[string, number, (e: Entry) => string]> = [
  ['TIME', 24, (e) => e.time],
  ['STATUS', 6, (e) => String(e.status)],
  ['KEY', 12, (e) => e.key ?? '-'],
  ['ROUTE', 10, (e) => e.route],
  ['MODEL', 28, (e) => (e.model === null ? '-' : e.served_model && e.served_model !== e.model ? `${e.model}→${e.served_model}` : e.model)],
  ['PROVIDER', 12, (e) => e.provider ?? (e.cache_hit ? '(cache)' : '-')],
  ['TRY', 3, (e) => String(e.attempts)],
  ['LATENCY_MS', 10, (e) => e.latency_ms.toFixed(1)],
  ['TTFB_MS', 9, (e) => e.ttfb_ms.toFixed(1)],
  ['TOKENS', 13, (e) => (e.prompt_tokens === null && e.completion_tokens === null ? '-' : `${e.prompt_tokens ?? 0}+${e.completion_tokens ?? 0}`)],
  ['COST_USD', 10, (e) => (e.cost_usd === null ? '-' : e.cost_usd.toFixed(6))],
  ['ERROR', 0, (e) => e.error_code ?? ''],
];
const RIGHT = new Set(['STATUS', 'TRY', 'LATENCY_MS', 'TTFB_MS', 'TOKENS', 'COST_USD']);

function padCell(text: string, width: number, right: boolean): string {
  if (width === 0) return text;
  const t = text.length > width ? `${text.slice(0, width - 1)}…` : text;
  return right ? t.padStart(width) : t.padEnd(width);
}

/** One table line (fixed widths, so --follow's later lines line up with the header). */
export function formatRow(cells: (h: string, i: number) => string): string {
  return COLUMNS.map(([h, w], i) => padCell(cells(h, i), w, RIGHT.has(h)))
    .join('  ')
    .trimEnd();
}

const header = () => formatRow((h) => h);
const line = (e: Entry) => formatRow((_h, i) => COLUMNS[i]![2](e));
const endOf = (e: Entry) => Date.parse(e.time) + e.latency_ms;

/** Each filter option and the query parameter it becomes. */
const FILTERS: ReadonlyArray<['key' | 'model' | 'provider' | 'route' | 'status' | 'errorCode' | 'tag' | 'requestId' | 'since' | 'until', string]> = [
  ['key', 'key'],
  ['model', 'model'],
  ['provider', 'provider'],
  ['route', 'route'],
  ['status', 'status'],
  ['errorCode', 'error_code'],
  ['tag', 'tag'],
  ['requestId', 'request_id'],
  ['since', 'since'],
  ['until', 'until'],
];

function path(o: RequestsOptions, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const [option, param] of FILTERS) if (o[option] !== undefined) q.set(param, o[option]!);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const s = q.toString();
  return `/v1/requests${s ? `?${s}` : ''}`;
}

export async function requests(o: RequestsOptions): Promise<void> {
  // --follow polls for what ends from now on: an end in the past would stop it at once
  if (o.follow && o.until !== undefined) throw new CliError('--until cannot be used with --follow (it prints requests as they end)');
  const client = adminClient();
  const first = await client.call<Entry[]>('GET', path(o, { limit: String(o.limit ?? (o.follow ? 20 : 50)) }), { notFound: notEnabled });
  if (!o.follow) {
    if (o.json) return printJson(first);
    process.stdout.write(`${[header(), ...[...first].reverse().map(line)].join('\n')}\n`);
    return;
  }
  const print = (entries: Entry[]) => {
    for (const e of entries) process.stdout.write(`${o.json ? JSON.stringify(e) : line(e)}\n`);
  };
  if (!o.json) process.stdout.write(`${header()}\n`);
  print([...first].reverse());
  // entries ending at the same millisecond as the newest seen may arrive later: poll from
  // that millisecond again and skip the ids already printed
  const seen = new Map<string, number>(first.map((e) => [e.request_id, endOf(e)]));
  let since = first.length ? Math.floor(first.reduce((max, e) => Math.max(max, endOf(e)), Number.NEGATIVE_INFINITY)) : Date.now() - 1000;
  for (;;) {
    await sleep(o.interval ?? 1000);
    const got = await client.call<Entry[]>('GET', path({ ...o, since: new Date(since).toISOString() }, { limit: '1000' }), { notFound: notEnabled });
    const fresh = got.filter((e) => !seen.has(e.request_id)).reverse();
    print(fresh);
    for (const e of fresh) {
      seen.set(e.request_id, endOf(e));
      since = Math.max(since, Math.floor(endOf(e)));
    }
    for (const [id, end] of seen) if (end < since - 10_000) seen.delete(id);
  }
}
