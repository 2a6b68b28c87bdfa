/**
 * Where the budget keeps spend (docs/extensions.md "Budget periods"): one counter record per
 * key, `s:<key>`: `usd` (lifetime) and `d:`/`w:`/`m:` + the period's start date for the current
 * and previous day, week and month, all charged at once; past periods from the hourly series.
 */
import { BUCKETS_KEY, type GatewayInfo, type KeyInfo, type Store } from 'gw/plugin';
import {
  type BudgetPeriod,
  DAY_MS,
  HOUR_MS,
  type Periodic,
  PERIODIC,
  periodAt,
  type PeriodClock,
  type PeriodWindow,
  rfc3339,
  windowOfField,
} from './period.ts';

export const PREFIX = 's:';
/** The lifetime total's field. */
export const TOTAL = 'usd';

/** The spend record's key of `account`. */
export function spendKey(account: string): string {
  return PREFIX + account;
}

/** What `rec` says was spent in `w` (undefined: lifetime), USD. */
export function spentIn(rec: Readonly<Record<string, number>>, w: PeriodWindow | undefined): number {
  return rec[w === undefined ? TOTAL : w.field] ?? 0;
}

/** The first field kept of each kind at `now`: the previous period's (a request admitted before a boundary is charged after it). */
export function firstKept(now: number): Record<Periodic, string> {
  const first = {} as Record<Periodic, string>;
  for (const p of PERIODIC) first[p] = periodAt(p, periodAt(p, now)!.start - 1)!.field;
  return first;
}

/** The period fields of `rec` older than `first` (firstKept), or undefined when there are none. */
export function staleFields(rec: Readonly<Record<string, number>>, first: Readonly<Record<Periodic, string>>): string[] | undefined {
  let out: string[] | undefined;
  for (const f in rec) {
    const kind = f.startsWith('d:') ? first.daily : f.startsWith('w:') ? first.weekly : f.startsWith('m:') ? first.monthly : undefined;
    if (kind !== undefined && f < kind) (out ??= []).push(f);
  }
  return out;
}

/** One entry of GET /v1/budget: the key's current period (or lifetime). */
export interface BudgetEntry {
  key: string;
  spent_usd: number;
  budget_usd: number;
  remaining_usd: number;
  /** Held by requests in flight right now. */
  reserved_usd: number;
  period: BudgetPeriod;
  /** RFC 3339; absent for lifetime. */
  period_start?: string;
  /** RFC 3339: when spend starts again from 0; absent for lifetime. */
  resets_at?: string;
}

/** One entry of GET /v1/budget?history=true: spend recorded in one period (or lifetime). */
export interface HistoryEntry {
  key: string;
  period: BudgetPeriod;
  period_start?: string;
  resets_at?: string;
  spent_usd: number;
}

/** USD rounded to 1e-9 so sums of float prices read cleanly. */
export const usd = (x: number): number => Math.round(x * 1e9) / 1e9;

/** The key names with a spend record (read each with `counters`: `entries` may lag a backend's in-memory counters). */
async function recorded(store: Store): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const [k] of store.entries(PREFIX)) {
    const account = k.slice(PREFIX.length);
    if (!account.includes('/')) out.add(account);
  }
  return out;
}

/** One entry per key name, sorted: its current period; a name that is no key any more shows its lifetime spend. */
export async function listBudgets(
  store: Store,
  gateway: GatewayInfo,
  periods: PeriodClock,
  limitOf: (name: string, key: KeyInfo | undefined) => number,
): Promise<BudgetEntry[]> {
  const now = gateway.now();
  const names = new Set([...gateway.keyNames(), ...(await recorded(store))]);
  const out: BudgetEntry[] = [];
  for (const name of [...names].sort()) {
    const key = gateway.key(name);
    const w = periods.at(key?.budgetPeriod ?? 'lifetime', now);
    const spent = spentIn(await store.counters(spendKey(name)), w);
    const budget = limitOf(name, key);
    const e: BudgetEntry = {
      key: name,
      spent_usd: usd(spent),
      budget_usd: budget,
      remaining_usd: usd(budget - spent),
      reserved_usd: usd(await store.held(spendKey(name))),
      period: w?.period ?? 'lifetime',
    };
    if (w) {
      e.period_start = rfc3339(w.start);
      e.resets_at = rfc3339(w.end);
    }
    out.push(e);
  }
  return out;
}

/** Each key's spend per UTC day before `end`, from the hourly series (key → day start → USD). */
async function seriesDays(store: Store, end: number, retentionMs: number, now: number): Promise<Map<string, Map<number, number>>> {
  const out = new Map<string, Map<number, number>>();
  if (retentionMs <= 0) return out;
  // at most ~11 years of hours: a store lists no more buckets in one call
  const from = Math.min(end, Math.max(now - retentionMs, end - 99_999 * HOUR_MS));
  for await (const row of store.buckets(BUCKETS_KEY, from, end, HOUR_MS)) {
    const spent = row.counters.usd;
    if (!spent) continue;
    let name: unknown;
    try {
      name = (JSON.parse(row.series) as unknown[])[0];
    } catch {
      continue; // not a series of ours
    }
    if (typeof name !== 'string') continue;
    let days = out.get(name);
    if (!days) out.set(name, (days = new Map()));
    const day = row.start - (row.start % DAY_MS);
    days.set(day, (days.get(day) ?? 0) + spent);
  }
  return out;
}

/** Per key with spend: its lifetime spend, then each period of its kind with spend, oldest first (the record's, then the series'). */
export async function budgetHistory(store: Store, gateway: GatewayInfo, retentionMs: number): Promise<HistoryEntry[]> {
  const out: HistoryEntry[] = [];
  const now = gateway.now();
  const first = firstKept(now);
  const names = [...(await recorded(store))].sort();
  // the series up to the latest period start a record holds (yesterday's: the previous day
  // starts after the previous week and month); per key, the periods its record holds are the record's
  const seriesEnd = windowOfField(first.daily)!.start;
  const series = names.some((n) => gateway.key(n)?.budgetPeriod !== undefined) ? await seriesDays(store, seriesEnd, retentionMs, now) : new Map();
  for (const name of names) {
    const rec = await store.counters(spendKey(name));
    out.push({ key: name, period: 'lifetime', spent_usd: usd(rec[TOTAL] ?? 0) });
    const period = gateway.key(name)?.budgetPeriod ?? 'lifetime';
    if (period === 'lifetime') continue;
    const kept = windowOfField(first[period])!.start;
    const byStart = new Map<number, { w: PeriodWindow; spent: number }>();
    for (const [day, spent] of (series.get(name) as Map<number, number> | undefined) ?? []) {
      const w = periodAt(period, day)!;
      if (w.start >= kept) continue; // the record's
      const p = byStart.get(w.start);
      if (p) p.spent += spent;
      else byStart.set(w.start, { w, spent });
    }
    for (const f in rec) {
      const w = windowOfField(f);
      if (w?.period === period && w.start >= kept) byStart.set(w.start, { w, spent: rec[f]! });
    }
    for (const start of [...byStart.keys()].sort((a, b) => a - b)) {
      const { w, spent } = byStart.get(start)!;
      out.push({ key: name, period, period_start: rfc3339(w.start), resets_at: rfc3339(w.end), spent_usd: usd(spent) });
    }
  }
  return out;
}
