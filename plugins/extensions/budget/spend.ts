/**
 * Where the budget extension keeps spend, and how `GET /v1/budget` reads it back.
 *
 * One counter record `{usd}` per key and period, in the extension's store namespace:
 *   s:<key>                         lifetime spend (the layout from before periods existed)
 *   s:<key>/<period>/<YYYY-MM-DD>   spend of the daily, weekly or monthly period starting that day
 * Key names cannot contain `/`, so the layout is unambiguous. A request's hold sits on the
 * counter of the period it was admitted in and is settled there, even when it ends after
 * the boundary; admission in the next period looks at the next counter only.
 */
import type { GatewayInfo, KeyInfo, Store } from 'gw/plugin';
import { type BudgetPeriod, isoDate, periodAt, type PeriodClock, type PeriodWindow, rfc3339 } from './period.ts';

export const PREFIX = 's:';

/** The counter key of `account` in `w` (undefined: lifetime). */
export function counterKey(account: string, w: PeriodWindow | undefined): string {
  return w === undefined ? PREFIX + account : `${PREFIX}${account}/${w.period}/${w.date}`;
}

/** A counter key read back: its account and period (`start` undefined for lifetime). */
export interface Counter {
  account: string;
  period: BudgetPeriod;
  window: PeriodWindow | undefined;
}

/** Parses a counter key (relative to the namespace); undefined for a key that is not one. */
export function parseCounterKey(k: string): Counter | undefined {
  if (!k.startsWith(PREFIX)) return undefined;
  const parts = k.slice(PREFIX.length).split('/');
  if (parts.length === 1) return { account: parts[0]!, period: 'lifetime', window: undefined };
  const [account, period, date] = parts as [string, string, string];
  if (parts.length !== 3 || (period !== 'daily' && period !== 'weekly' && period !== 'monthly')) return undefined;
  const start = Date.parse(`${date}T00:00:00Z`);
  const w = Number.isFinite(start) ? periodAt(period, start) : undefined;
  if (!w || isoDate(w.start) !== date) return undefined;
  return { account, period, window: w };
}

/** One entry of GET /v1/budget: the key's current period (or lifetime). */
export interface BudgetEntry {
  key: string;
  spent_usd: number;
  budget_usd: number;
  remaining_usd: number;
  /** Held by requests in flight right now (admitted in this period). */
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

/** Every counter in the store, by account, each with its recorded spend. */
async function recorded(store: Store): Promise<Map<string, Array<Counter & { spent: number }>>> {
  const out = new Map<string, Array<Counter & { spent: number }>>();
  for await (const [k, v] of store.entries(PREFIX)) {
    const c = parseCounterKey(k);
    if (!c) continue;
    let spent = 0;
    try {
      spent = (JSON.parse(v) as Record<string, number>).usd ?? 0;
    } catch {
      continue; // not a counter of ours
    }
    const list = out.get(c.account);
    if (list) list.push({ ...c, spent });
    else out.set(c.account, [{ ...c, spent }]);
  }
  return out;
}

/**
 * One entry per key name (configured, runtime, or with recorded spend), sorted by name: the
 * key's current period under its settings now. A name that is no key any more shows its
 * lifetime spend, else its latest recorded period.
 */
export async function listBudgets(
  store: Store,
  gateway: GatewayInfo,
  periods: PeriodClock,
  limitOf: (name: string, key: KeyInfo | undefined) => number,
): Promise<BudgetEntry[]> {
  const now = gateway.now();
  const seen = await recorded(store);
  const names = new Set([...gateway.keyNames(), ...seen.keys()]);
  const out: BudgetEntry[] = [];
  for (const name of [...names].sort()) {
    const key = gateway.key(name);
    let w: PeriodWindow | undefined;
    if (key) w = periods.at(key.budgetPeriod ?? 'lifetime', now);
    else {
      const list = seen.get(name) ?? [];
      if (!list.some((c) => c.window === undefined))
        w = list.reduce<PeriodWindow | undefined>((a, c) => (c.window && (!a || c.window.start > a.start) ? c.window : a), undefined);
    }
    const counter = counterKey(name, w);
    const spent = (await store.counters(counter)).usd ?? 0;
    const budget = limitOf(name, key);
    const e: BudgetEntry = {
      key: name,
      spent_usd: usd(spent),
      budget_usd: budget,
      remaining_usd: usd(budget - spent),
      reserved_usd: usd(await store.held(counter)),
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

/** Every recorded counter, past periods included: by key name, lifetime first, then by period start. */
export async function budgetHistory(store: Store): Promise<HistoryEntry[]> {
  const out: Array<HistoryEntry & { at: number }> = [];
  for (const list of (await recorded(store)).values()) {
    for (const c of list) {
      const e: HistoryEntry & { at: number } = { key: c.account, period: c.period, spent_usd: usd(c.spent), at: c.window?.start ?? -Infinity };
      if (c.window) {
        e.period_start = rfc3339(c.window.start);
        e.resets_at = rfc3339(c.window.end);
      }
      out.push(e);
    }
  }
  out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.at - b.at || (a.period < b.period ? -1 : 1)));
  return out.map(({ at: _at, ...e }) => e);
}
