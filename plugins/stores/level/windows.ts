/** The LevelDB store's sliding windows: each log in memory while in use, every entry on disk, expired ones range-deleted now and then. */
import type { WindowVerdict } from 'gw/plugin/store';
import { IdleMap } from './idle-map.ts';
import { WINDOW_SPACE, windowTime } from './layout.ts';
import { WindowLog } from './window-log.ts';
import type { Db, WriteQueue } from './writer.ts';

/** Expired window entries go in one range delete per window at most this often. */
const WINDOW_TRIM_MS = 1_000;

/** A window log in memory and what its on-disk entries need. */
interface Window {
  log: WindowLog;
  /** The longest `windowMs` it was used with (eviction: empty after that long). */
  windowMs: number;
  /** Entries at or before this time (epoch ms) may still be on disk: the next range delete goes up to it. */
  expiredTo: number;
  /** When the last range delete of expired entries was issued (epoch ms). */
  trimmedAt: number;
}

export class Windows {
  private readonly windows = new IdleMap<string, Window>();
  private readonly loading = new Map<string, Promise<Window>>();
  private readonly db: Db;
  private readonly writer: WriteQueue;
  /** Makes entry keys of one millisecond unique. */
  private seq = Math.floor(Math.random() * 2 ** 32);

  constructor(db: Db, writer: WriteQueue) {
    this.db = db;
    this.writer = writer;
  }

  /** Windows in memory. */
  get size(): number {
    return this.windows.size;
  }

  /** `Store.windowAdmit` on the full key `full`. */
  async admit(full: string, limit: number, windowMs: number, opts: { cost?: number; pending?: number; now?: number }): Promise<WindowVerdict> {
    const now = opts.now ?? Date.now();
    const pending = opts.pending ?? 0;
    const l = this.window(full, windowMs);
    const w = l instanceof Promise ? await l : l;
    // from here to the push in addEntry() nothing awaits: check-and-record is atomic in this process
    this.expire(full, w, now - windowMs, now);
    const total = w.log.total;
    if (total + pending >= limit) return { admitted: false, total, retryAfterMs: w.log.retryAfter(limit, pending, now, windowMs) };
    const cost = opts.cost ?? 1;
    if (cost !== 0) await this.addEntry(full, w, now, cost);
    return { admitted: true, total, retryAfterMs: 0 };
  }

  /** `Store.windowAdd` on the full key `full`. */
  async add(full: string, amount: number, windowMs: number, now: number): Promise<void> {
    const l = this.window(full, windowMs);
    const w = l instanceof Promise ? await l : l;
    this.expire(full, w, now - windowMs, now);
    if (amount !== 0) await this.addEntry(full, w, now, amount);
  }

  /** Drops from memory the windows nobody used since the last call once empty; their expired entries then leave the disk too. */
  evictIdle(now: number): void {
    this.windows.sweep((full, w) => {
      w.log.expire(now - w.windowMs);
      if (w.log.size > 0) return true;
      w.expiredTo = now - w.windowMs;
      this.trim(full, w, now);
      return false;
    });
  }

  /** The window at `full`, loaded from disk on first use (once, even under concurrent calls). */
  private window(full: string, windowMs: number): Window | Promise<Window> {
    const w = this.windows.get(full);
    if (w) {
      if (windowMs > w.windowMs) w.windowMs = windowMs;
      return w;
    }
    let p = this.loading.get(full);
    if (!p) {
      p = (async () => {
        const log = new WindowLog();
        const start = `${WINDOW_SPACE}${full}\u0000`;
        const rows: Array<[number, number]> = [];
        for await (const v of this.db.values({ gte: start, lt: `${start}\uffff` })) {
          const i = v.indexOf(':');
          rows.push([Number(v.slice(0, i)), Number(v.slice(i + 1))]);
        }
        rows.sort((a, b) => a[0] - b[0]);
        for (const [ts, amount] of rows) log.push(ts, amount);
        const w: Window = { log, windowMs, expiredTo: Number.NEGATIVE_INFINITY, trimmedAt: 0 };
        this.windows.set(full, w);
        this.loading.delete(full);
        return w;
      })();
      this.loading.set(full, p);
    }
    return p;
  }

  /** Expires entries at or before `cutoff`; on disk one range delete every WINDOW_TRIM_MS (a restart expires them again). */
  private expire(full: string, w: Window, cutoff: number, now: number): void {
    if (w.log.expire(cutoff) > 0 && cutoff > w.expiredTo) w.expiredTo = cutoff;
    if (w.expiredTo > Number.NEGATIVE_INFINITY && now - w.trimmedAt >= WINDOW_TRIM_MS) this.trim(full, w, now);
  }

  private trim(full: string, w: Window, now: number): void {
    const start = `${WINDOW_SPACE}${full}\u0000`;
    const lt = start + windowTime(Math.max(0, w.expiredTo + 1));
    w.trimmedAt = now;
    w.expiredTo = Number.NEGATIVE_INFINITY;
    // a put still queued for an entry this old lands after the delete: it is expired anyway
    this.db.clear({ gte: start, lt }).catch(() => undefined);
  }

  /** Records a window entry: in memory now, on disk when the promise resolves. */
  private addEntry(full: string, w: Window, now: number, amount: number): Promise<void> {
    w.log.push(now, amount);
    const key = `${WINDOW_SPACE}${full}\u0000${windowTime(now)}.${(this.seq++ >>> 0).toString(36)}`;
    return this.writer.write({ type: 'put', key, value: `${now}:${amount}` });
  }
}
