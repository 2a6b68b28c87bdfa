/** The LevelDB store's rings: one key per value by sequence number (newest first is one reverse scan); old values range-deleted now and then. */
import { EMPTY, pad, RING_SPACE } from './layout.ts';
import type { Db, WriteQueue } from './writer.ts';

/** A ring's trimming runs once this many values are past its length (one range delete instead of one per push). */
const RING_TRIM_EVERY = 256;

/** A ring in this process: last sequence number, length, and every seq up to `trimmed` deleted. */
interface RingState {
  seq: number;
  maxLen: number;
  trimmed: number;
}

export class Rings {
  /** Rings: the last sequence number used (loaded from disk on first use). */
  private readonly states = new Map<string, RingState>();
  private readonly loading = new Map<string, Promise<RingState>>();
  private readonly db: Db;
  private readonly writer: WriteQueue;

  constructor(db: Db, writer: WriteQueue) {
    this.db = db;
    this.writer = writer;
  }

  /** `Store.ringPush` on the full key `full`. */
  async push(full: string, value: string, maxLen: number): Promise<number> {
    const prefix = `${RING_SPACE}${full}\u0000`;
    const r = this.ring(prefix, maxLen);
    const state = r instanceof Promise ? await r : r;
    // from here to write() nothing awaits: the sequence number is atomic in this process
    const seq = ++state.seq;
    const done = this.writer.write({ type: 'put', key: prefix + pad(seq), value });
    if (seq - maxLen - state.trimmed >= RING_TRIM_EVERY) {
      // values past the length go in one range delete now and then; reads skip them meanwhile
      state.trimmed = seq - maxLen;
      void done.then(() => this.db.clear({ gte: prefix, lt: prefix + pad(state.trimmed + 1) })).catch(() => undefined);
    }
    await done;
    return seq;
  }

  /** `Store.ringRead` on the full key `full`. */
  async *read(full: string, opts: { limit?: number; before?: number }): AsyncIterable<[number, string]> {
    const prefix = `${RING_SPACE}${full}\u0000`;
    const limit = opts.limit ?? Infinity;
    if (!(limit > 0)) return;
    await this.writer.drain();
    const lt = opts.before === undefined ? `${prefix}\uffff` : prefix + pad(Math.max(0, opts.before));
    // values past the ring's length that are not trimmed yet are not part of it
    const state = this.states.get(prefix);
    const gte = state ? prefix + pad(Math.max(0, state.seq - state.maxLen + 1)) : prefix;
    const it = this.db.iterator({ gte, lt, reverse: true, limit: Number.isFinite(limit) ? limit : -1 });
    for await (const [k, v] of it) yield [Number(k.slice(prefix.length)), v === EMPTY ? '' : v];
  }

  /** A ring's state, loaded once: its last sequence number; values beyond `maxLen` left by an earlier process are trimmed. */
  private ring(prefix: string, maxLen: number): RingState | Promise<RingState> {
    const r = this.states.get(prefix);
    if (r) return r;
    let p = this.loading.get(prefix);
    if (!p) {
      p = (async () => {
        let seq = 0;
        for await (const k of this.db.keys({ gte: prefix, lt: `${prefix}\uffff`, reverse: true, limit: 1 })) seq = Number(k.slice(prefix.length));
        if (seq > maxLen) await this.db.clear({ gte: prefix, lt: prefix + pad(seq - maxLen + 1) });
        const state: RingState = { seq, maxLen, trimmed: Math.max(0, seq - maxLen) };
        this.states.set(prefix, state);
        this.loading.delete(prefix);
        return state;
      })();
      this.loading.set(prefix, p);
    }
    return p;
  }
}
