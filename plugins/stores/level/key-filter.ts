/**
 * A scalable Bloom filter of strings: `mightHave` is false only for a key never added (no
 * false negatives), true for about 1% of the others. It grows by adding a filter twice the
 * size of the last when that one is full, so it needs no capacity up front. ~10 bits a key.
 * Not the npm `bloom-filters`: why: docs/benchmarks.md#an-own-bloom-filter
 */
const BITS_PER_KEY = 10;
const PROBES = 7;
const FIRST_CAPACITY = 16_384;

interface Part {
  bits: Uint32Array;
  /** Bits in `bits` (a power of two). */
  size: number;
  capacity: number;
  count: number;
}

/** A key's first hash (the probe start), for the `…Hashed` methods: one hashing for several filters. */
export const hash1 = (key: string): number => hash(key, 0x811c9dc5);
/** A key's second hash (the probe step, odd). */
export const hash2 = (key: string): number => hash(key, 0x9747b28c) | 1;

export class KeyFilter {
  private parts: Part[] = [];
  private readonly firstCapacity: number;

  /** @param firstCapacity keys the first part holds before a second, twice larger, is added */
  constructor(firstCapacity = FIRST_CAPACITY) {
    this.firstCapacity = firstCapacity;
  }

  /** Adds `key` unless (probably) there: the same counter keys put on every request would make it grow with requests, not keys. */
  add(key: string): void {
    this.addHashed(hash1(key), hash2(key));
  }

  /** `add` of a key by its `hash1` and `hash2`. */
  addHashed(h1: number, h2: number): void {
    if (this.hasHashed(h1, h2)) return;
    let p = this.parts[this.parts.length - 1];
    if (!p || p.count >= p.capacity) this.parts.push((p = part(p ? p.capacity * 2 : this.firstCapacity)));
    p.count++;
    let h = h1;
    const mask = p.size - 1;
    for (let i = 0; i < PROBES; i++) {
      const b = h & mask;
      p.bits[b >>> 5] = p.bits[b >>> 5]! | (1 << (b & 31));
      h = (h + h2) | 0;
    }
  }

  /** False when `key` was certainly never added. */
  mightHave(key: string): boolean {
    return this.hasHashed(hash1(key), hash2(key));
  }

  /** Bytes of the bit arrays (for tests and sizing). */
  get bytes(): number {
    let n = 0;
    for (const p of this.parts) n += p.bits.byteLength;
    return n;
  }

  /** `mightHave` of a key by its `hash1` and `hash2`. */
  hasHashed(first: number, h2: number): boolean {
    outer: for (const p of this.parts) {
      let h1 = first;
      const mask = p.size - 1;
      for (let i = 0; i < PROBES; i++) {
        const b = h1 & mask;
        if ((p.bits[b >>> 5]! & (1 << (b & 31))) === 0) continue outer;
        h1 = (h1 + h2) | 0;
      }
      return true;
    }
    return false;
  }

  /** Keys added, each once (about 1% of new keys count as already there), for tests and sizing. */
  get count(): number {
    let n = 0;
    for (const p of this.parts) n += p.count;
    return n;
  }
}

function part(capacity: number): Part {
  let size = 32;
  while (size < capacity * BITS_PER_KEY) size *= 2;
  return { bits: new Uint32Array(size / 32), size, capacity, count: 0 };
}

/** FNV-1a over UTF-16 code units with a seed, then a final avalanche (murmur3's fmix32). */
function hash(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
