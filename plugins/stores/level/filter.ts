/**
 * The value space's key filters: a read of a key none has (a cache miss) needs no LevelDB
 * lookup. TTL'd keys go in their expiry generation's filter, dropped when it ends.
 */
import { hash1, hash2, KeyFilter } from './key-filter.ts';

/** TTL'd keys whose expiry falls in [end - width, end) (epoch ms). */
interface Generation {
  filter: KeyFilter;
  end: number;
  width: number;
}

export class ValueFilter {
  private readonly present = new KeyFilter();
  /** Expiry generations held: a few per TTL in use (at most 16 each), so found by a scan. */
  private generations: Generation[] = [];
  private readonly minWidth: number;
  /** Set once every key on disk is in a filter: until then reads go to LevelDB. */
  ready = false;

  /** @param minWidth the shortest generation, ms: the sweep interval (an ended generation is forgotten at the next sweep) */
  constructor(minWidth: number) {
    this.minWidth = minWidth;
  }

  /** Adds the key of a plain value or a counter. */
  addPlain(key: string): void {
    this.present.add(key);
  }

  /** Adds the key of a value expiring at `expiresAt` (epoch ms) after `ttlMs`. */
  addExpiring(key: string, expiresAt: number, ttlMs: number): void {
    this.generation(expiresAt, ttlMs).add(key);
  }

  /** False when `key` (of the value space) is certainly neither on disk nor queued. */
  mightHave(key: string): boolean {
    const h1 = hash1(key);
    const h2 = hash2(key);
    if (this.present.hasHashed(h1, h2)) return true;
    for (const g of this.generations) if (g.filter.hasHashed(h1, h2)) return true;
    return false;
  }

  /** Drops the filters of generations that ended by `now`: every key in them has expired. */
  forget(now: number): void {
    this.generations = this.generations.filter((g) => g.end > now);
  }

  /** About how many TTL values are live at `now` (the current generation's expiries taken as evenly spread). */
  liveExpiring(now: number): number {
    let n = 0;
    for (const g of this.generations) n += g.filter.count * Math.min(1, (g.end - now) / g.width);
    return n;
  }

  /** Expiry generation filters held (tests: expired keys are forgotten). */
  get generationCount(): number {
    return this.generations.length;
  }

  /** The filter of the expiry generation of a value expiring at `expiresAt` after `ttlMs`. */
  private generation(expiresAt: number, ttlMs: number): KeyFilter {
    const width = this.generationWidth(ttlMs);
    const end = (Math.floor(expiresAt / width) + 1) * width;
    for (const g of this.generations) if (g.end === end && g.width === width) return g.filter;
    // a small first part: a lightly used TTL's generation stays small, a busy one grows
    const g = { filter: new KeyFilter(1024), end, width };
    this.generations.push(g);
    return g.filter;
  }

  /** The generation length (ms) for `ttlMs`: `minWidth` doubled while 16 fit, so a TTL spans at most 16 filters. */
  private generationWidth(ttlMs: number): number {
    let width = this.minWidth;
    while (width * 16 <= ttlMs) width *= 2;
    return width;
  }
}
