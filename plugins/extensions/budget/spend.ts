/**
 * Where the budget extension keeps spend, and how `GET /v1/budget` reads it back.
 *
 * One counter record per key name, `s:<key>`, in the extension's store namespace:
 *   usd            everything the key ever spent (its lifetime spend)
 *   d:YYYY-MM-DD   what it spent on that UTC day, kept `retention_days` (at least MIN_DAYS_KEPT)
 * A daily, weekly or monthly period's spend is the sum of its days; lifetime is `usd`. Every
 * period reads the same data, so switching a key's period (daily → monthly, → lifetime)
 * keeps what it spent, and one settle writes the total and the day in one atomic step.
 * Requests in flight hold on the record (not on a period), so the holds count against
 * whatever period is in force; a request is charged to the day it was admitted in.
 */
import type { GatewayInfo, KeyInfo, Store } from 'gw/plugin';
import { type BudgetPeriod, dayOfField, periodAt, type PeriodClock, type PeriodWindow, rfc3339 } from './period.ts';

export const PREFIX = 's:';
/** The lifetime total's field. */
export const TOTAL = 'usd';
/** Days kept whatever `retention_days` says: the longest period (a month) needs 31. */
export const MIN_DAYS_KEPT = 32;

/** The spend record's key of `account`. */
export function spendKey(account: string): string {
  return PREFIX + account;
}

/** What `rec` says was spent in `w` (undefined: lifetime), USD. */
export function spentIn(rec: Readonly<Record<string, number>>, w: PeriodWindow | undefined): number {
  if (w === undefined) return rec[TOTAL] ?? 0;
  let sum = 0;
  for (const f of w.days) sum += rec[f] ?? 0;
  return sum;
}

/** The day fields of `rec` before `cutoff` (a day field: `d:YYYY-MM-DD` order is date order), or undefined when there are none. */
export function staleDays(rec: Readonly<Record<string, number>>, cutoff: string): string[] | undefined {
  let out: string[] | undefined;
  for (const f in rec) if (f < cutoff && f.startsWith('d:')) (out ??= []).push(f);
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

/**
 * The key names with a spend record in the store (records of the earlier layout,
 * `s:<key>/…`, are legacy.ts's). Read each record with `counters`: `entries` may lag the
 * counters a backend keeps in memory (LevelDB writes them behind).
 */
async function recorded(store: Store): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const [k] of store.entries(PREFIX)) {
    const account = k.slice(PREFIX.length);
    if (!account.includes('/')) out.add(account);
  }
  return out;
}

/**
 * One entry per key name (configured, runtime, or with recorded spend), sorted by name: the
 * key's current period under its settings now; a name that is no key any more shows its
 * lifetime spend.
 */
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

/**
 * Every key name with recorded spend, by name: its lifetime spend, then, for a key whose
 * period is daily, weekly or monthly, every such period with spend in the days kept, oldest first.
 */
export async function budgetHistory(store: Store, gateway: GatewayInfo): Promise<HistoryEntry[]> {
  const out: HistoryEntry[] = [];
  for (const name of [...(await recorded(store))].sort()) {
    const rec = await store.counters(spendKey(name));
    out.push({ key: name, period: 'lifetime', spent_usd: usd(rec[TOTAL] ?? 0) });
    const period = gateway.key(name)?.budgetPeriod ?? 'lifetime';
    if (period === 'lifetime') continue;
    const byStart = new Map<number, { w: PeriodWindow; spent: number }>();
    for (const f in rec) {
      const day = dayOfField(f);
      if (day === undefined) continue;
      const w = periodAt(period, day)!;
      const p = byStart.get(w.start);
      if (p) p.spent += rec[f]!;
      else byStart.set(w.start, { w, spent: rec[f]! });
    }
    for (const start of [...byStart.keys()].sort((a, b) => a - b)) {
      const { w, spent } = byStart.get(start)!;
      out.push({ key: name, period, period_start: rfc3339(w.start), resets_at: rfc3339(w.end), spent_usd: usd(spent) });
    }
  }
  return out;
}
