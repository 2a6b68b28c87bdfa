/**
 * Budget periods (docs/design.md "Virtual keys"): UTC calendar periods, weeks starting Monday.
 * A periodic budget spends into one counter per period, keyed by the period's start date,
 * so spend resets at the boundary by itself (a new counter) and past periods stay
 * readable (their counters are kept). Pure arithmetic on epoch milliseconds: no time
 * zones, no daylight saving, leap days from Date.UTC.
 */
import { type BudgetPeriod, rfc3339 } from 'gw/plugin';

export { type BudgetPeriod, rfc3339 };

/** A period that resets: [start, end) in epoch ms, and its start date as it appears in counter keys. */
export interface PeriodWindow {
  period: Exclude<BudgetPeriod, 'lifetime'>;
  /** Epoch ms of 00:00:00 UTC on the first day. */
  start: number;
  /** Epoch ms of the next period's start (`resets_at`). */
  end: number;
  /** `YYYY-MM-DD` of `start`. */
  date: string;
}

const DAY_MS = 86_400_000;

/** The period of kind `period` containing `now` (epoch ms); undefined for `lifetime`. */
export function periodAt(period: BudgetPeriod, now: number): PeriodWindow | undefined {
  if (period === 'lifetime') return undefined;
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const day = Date.UTC(y, m, d.getUTCDate());
  let start: number;
  let end: number;
  if (period === 'daily') {
    start = day;
    end = day + DAY_MS;
  } else if (period === 'weekly') {
    // getUTCDay: 0 = Sunday; Monday-based index 0..6
    start = day - ((d.getUTCDay() + 6) % 7) * DAY_MS;
    end = start + 7 * DAY_MS;
  } else {
    start = Date.UTC(y, m, 1);
    end = Date.UTC(y, m + 1, 1); // December rolls over to January of the next year
  }
  return { period, start, end, date: isoDate(start) };
}

/** `YYYY-MM-DD` (UTC) of epoch ms. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The current period of each kind, recomputed only when the clock leaves it (forwards
 * across a boundary, or backwards: a clock set back gets the earlier period again). There
 * are three kinds, so this is three cached windows for every key, not one per key.
 */
export class PeriodClock {
  private readonly cache = new Map<BudgetPeriod, PeriodWindow>();

  /** The window of `period` containing `now`; undefined for `lifetime`. */
  at(period: BudgetPeriod, now: number): PeriodWindow | undefined {
    if (period === 'lifetime') return undefined;
    const w = this.cache.get(period);
    if (w && now >= w.start && now < w.end) return w;
    const fresh = periodAt(period, now)!;
    this.cache.set(period, fresh);
    return fresh;
  }
}
