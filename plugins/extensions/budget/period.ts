/**
 * Budget periods (docs/design.md "Virtual keys"): UTC calendar periods, weeks starting Monday.
 * Spend is kept per UTC day (spend.ts), so a period's spend is the sum of its days' totals:
 * each window lists the day fields it spans. Pure arithmetic on epoch milliseconds: no time
 * zones, no daylight saving, leap days from Date.UTC.
 */
import { type BudgetPeriod, DAY_MS, rfc3339 } from 'gw/plugin';

export { type BudgetPeriod, rfc3339 };

/** A period that resets: [start, end) in epoch ms, and the day fields it spans. */
export interface PeriodWindow {
  period: Exclude<BudgetPeriod, 'lifetime'>;
  /** Epoch ms of 00:00:00 UTC on the first day. */
  start: number;
  /** Epoch ms of the next period's start (`resets_at`). */
  end: number;
  /** `YYYY-MM-DD` of `start`. */
  date: string;
  /** The day fields (`dayField`) of every day in [start, end): 1, 7 or 28 to 31. */
  days: readonly string[];
}

/** The field of the spend record holding what was spent on the UTC day containing `ms`: `d:YYYY-MM-DD`. */
export function dayField(ms: number): string {
  return `d:${isoDate(ms)}`;
}

/** The field of a day as a period, or undefined when `field` is no day field. */
export function dayOfField(field: string): number | undefined {
  if (field.length !== 12 || !field.startsWith('d:')) return undefined;
  const ms = Date.parse(`${field.slice(2)}T00:00:00Z`);
  return Number.isFinite(ms) && isoDate(ms) === field.slice(2) ? ms : undefined;
}

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
  const days: string[] = [];
  for (let t = start; t < end; t += DAY_MS) days.push(dayField(t));
  return { period, start, end, date: isoDate(start), days };
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

  /** The day field of `now` (the daily window's, cached). */
  day(now: number): string {
    return this.at('daily', now)!.days[0]!;
  }
}
