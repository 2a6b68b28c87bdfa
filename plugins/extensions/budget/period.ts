/** Budget periods: UTC calendar periods (weeks from Monday), pure arithmetic on epoch ms; the field each names in a spend record. */
import { type BudgetPeriod, rfc3339 } from 'gw/plugin';

export { type BudgetPeriod, rfc3339 };

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export type Periodic = Exclude<BudgetPeriod, 'lifetime'>;

/** A period that resets: [start, end) in epoch ms, its start date and its field in a spend record. */
export interface PeriodWindow {
  period: Periodic;
  /** Epoch ms of 00:00:00 UTC on the first day. */
  start: number;
  /** Epoch ms of the next period's start (`resets_at`). */
  end: number;
  /** `YYYY-MM-DD` of `start`. */
  date: string;
  /** The spend record's field of this period: `d:`, `w:` or `m:` + `date`. */
  field: string;
}

/** The periods that reset, in field order (day, week, month). */
export const PERIODIC: readonly Periodic[] = ['daily', 'weekly', 'monthly'];
const PREFIX: Record<Periodic, string> = { daily: 'd:', weekly: 'w:', monthly: 'm:' };

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
  const date = isoDate(start);
  return { period, start, end, date, field: PREFIX[period] + date };
}

/** The period a spend record's field names, or undefined when it names none. */
export function windowOfField(field: string): PeriodWindow | undefined {
  if (field.length !== 12) return undefined;
  const period = PERIODIC.find((p) => field.startsWith(PREFIX[p]));
  if (period === undefined) return undefined;
  const start = Date.parse(`${field.slice(2)}T00:00:00Z`);
  const w = Number.isFinite(start) ? periodAt(period, start) : undefined;
  return w && w.field === field ? w : undefined;
}

/** `YYYY-MM-DD` (UTC) of epoch ms. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The current period of each kind, recomputed only when the clock leaves it: three cached windows for all keys. */
export class PeriodClock {
  private readonly cache = new Map<BudgetPeriod, PeriodWindow>();
  private fields: { day: string; list: readonly string[] } = { day: '', list: [] };

  /** The window of `period` containing `now`; undefined for `lifetime`. */
  at(period: BudgetPeriod, now: number): PeriodWindow | undefined {
    if (period === 'lifetime') return undefined;
    const w = this.cache.get(period);
    if (w && now >= w.start && now < w.end) return w;
    const fresh = periodAt(period, now)!;
    this.cache.set(period, fresh);
    return fresh;
  }

  /** The fields of the day, week and month containing `now` (one array per day): a charge adds to each. */
  fieldsAt(now: number): readonly string[] {
    const day = this.at('daily', now)!.field;
    if (this.fields.day !== day) this.fields = { day, list: PERIODIC.map((p) => this.at(p, now)!.field) };
    return this.fields.list;
  }
}
