/**
 * Spend of the earlier layout (`s:<key>/<period>/<date>` counters) folded into the one record per
 * key at startup (docs/extensions.md "Budget periods"), under the store lock, once across
 * instances: each fold one atomic incr with a marker, then the old counter deleted.
 */
import type { Store } from 'gw/plugin';
import { PERIODIC, periodAt } from './period.ts';
import { PREFIX, spendKey, TOTAL } from './spend.ts';

/** The store lock the migration runs under. */
const LOCK = 'layout';

/** One counter of the earlier layout. */
interface LegacyCounter {
  /** Its key (relative to the namespace). */
  key: string;
  account: string;
  /** `<period>/<YYYY-MM-DD>`: the marker field is `x:` + this. */
  tag: string;
  /** The period fields its amount goes to: its own, and the day's, week's and month's it is dated to. */
  fields: string[];
  amount: number;
}

/** Parses a counter key of the earlier layout; undefined for anything else. */
export function parseLegacyKey(key: string, value: string, today: number): LegacyCounter | undefined {
  if (!key.startsWith(PREFIX)) return undefined;
  const parts = key.slice(PREFIX.length).split('/');
  if (parts.length !== 3) return undefined;
  const [account, period, date] = parts as [string, string, string];
  if (period !== 'daily' && period !== 'weekly' && period !== 'monthly') return undefined;
  const start = Date.parse(`${date}T00:00:00Z`);
  const w = Number.isFinite(start) ? periodAt(period, start) : undefined;
  if (!w || w.date !== date) return undefined;
  let amount: unknown;
  try {
    amount = (JSON.parse(value) as Record<string, unknown>).usd;
  } catch {
    return undefined;
  }
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return undefined;
  const dated = Math.min(w.end - 1, Math.max(today, w.start));
  const fields = [...new Set([w.field, ...PERIODIC.map((p) => periodAt(p, dated)!.field)])];
  return { key, account, tag: `${period}/${date}`, fields, amount };
}

/** Folds every counter of the earlier layout into the per-key records (`today`: the gateway's clock); how many. */
export async function foldLegacy(store: Store, today: number): Promise<number> {
  return store.withLock(LOCK, async () => {
    const found: LegacyCounter[] = [];
    for await (const [k, v] of store.entries(PREFIX)) {
      const c = parseLegacyKey(k, v, today);
      if (c) found.push(c);
    }
    for (const c of found) {
      const record = spendKey(c.account);
      const marker = `x:${c.tag}`;
      if ((await store.counters(record))[marker] === undefined && c.amount !== 0) {
        const deltas: Record<string, number> = { [TOTAL]: c.amount, [marker]: c.amount };
        for (const f of c.fields) deltas[f] = c.amount;
        await store.incr(record, deltas);
      }
      await store.delete(c.key);
      await store.dropFields?.(record, [marker]);
    }
    return found.length;
  });
}
