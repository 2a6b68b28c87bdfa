/**
 * Prompt-cache affinity: a conversation's turns go to the member that served its last one
 * (while its circuit is closed). A bounded local map, and a shared store read on a local miss.
 * docs/configuration.md "Aliases, routing, retries, fallbacks".
 */
import { hash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Store } from '../store/types.ts';
import type { Member } from './member.ts';
import type { Group } from './strategy.ts';

/** `[routing]` affinity settings the table reads on each call (a reload changes them). */
export interface AffinitySettings {
  affinity_ttl_seconds: number;
  affinity_max_entries: number;
}

/** A conversation's member, and when it was last used and last written to the shared store (epoch ms). */
interface Entry {
  provider: string;
  used: number;
  written: number;
}

/** A conversation's affinity key: base64url SHA-1 of key name, canonical model and the format's source (never stored as is). */
export function affinityKey(keyName: string, model: string, source: string): string {
  return hash('sha1', `${keyName}\0${model}\0${source}`, 'base64url');
}

/**
 * The gateway's affinity mappings, kept across snapshots. Bounded by two generations (hashlru):
 * a full `young` becomes `old`, a hit in `old` is copied to `young`. why: docs/benchmarks.md#affinity-generations
 */
export class AffinityTable {
  private young = new Map<string, Entry>();
  private old = new Map<string, Entry>();
  private readonly store: Store | undefined;
  private readonly log: Logger;
  private readonly now: () => number;

  /** @param store the shared store (namespaced), or undefined when no other instance reads it. */
  constructor(store: Store | undefined, log: Logger, now: () => number = Date.now) {
    this.store = store;
    this.log = log;
    this.now = now;
  }

  /** Mappings held locally, at most `affinity_max_entries` (a mapping in both generations counts twice). */
  get size(): number {
    return this.young.size + this.old.size;
  }

  /** `key`'s member when it is in `group` with a closed circuit, else undefined; a shared store failure counts as a miss. */
  async pick(key: string, group: Group, s: AffinitySettings): Promise<Member | undefined> {
    const now = this.now();
    let e = this.find(key, now, s);
    if (e === undefined && this.store !== undefined) {
      const provider = await this.store.get(key).catch((err: unknown) => {
        this.log.warn({ err }, 'affinity: reading the shared store failed; the strategy picks');
        return undefined;
      });
      // written 0: the next record refreshes the shared entry's TTL from this instance
      if (provider !== undefined) this.keep(key, (e = { provider, used: now, written: 0 }), s);
    }
    if (e === undefined) return undefined;
    e.used = now;
    const m = memberOf(group, e.provider);
    return m !== undefined && m.breaker.state === 'closed' ? m : undefined;
  }

  /** Records that `provider` served `key`'s conversation; writes the shared store when the mapping changed or is due a refresh. */
  record(key: string, provider: string, s: AffinitySettings): void {
    const now = this.now();
    const ttlMs = s.affinity_ttl_seconds * 1000;
    let e = this.find(key, now, s);
    if (e === undefined) this.keep(key, (e = { provider, used: now, written: 0 }), s);
    else if (e.provider !== provider) {
      // in place: a copy of the entry in the old generation moves with it
      e.provider = provider;
      e.written = 0;
    }
    e.used = now;
    if (this.store === undefined || now - e.written < ttlMs / 4) return;
    e.written = now;
    const entry = e;
    this.store.set(key, provider, { ttlMs }).catch((err: unknown) => {
      entry.written = 0;
      this.log.warn({ err }, 'affinity: writing the shared store failed; other instances may pick another member');
    });
  }

  /** The live local entry of `key` (one idle past the TTL is none), brought into the young generation. */
  private find(key: string, now: number, s: AffinitySettings): Entry | undefined {
    let e = this.young.get(key);
    if (e === undefined) {
      e = this.old.get(key);
      if (e === undefined) return undefined;
      this.keep(key, e, s);
    }
    return now - e.used > s.affinity_ttl_seconds * 1000 ? undefined : e;
  }

  /** Puts `e` in the young generation; a full one becomes the old one (the previous old is dropped). */
  private keep(key: string, e: Entry, s: AffinitySettings): void {
    this.young.set(key, e);
    if (this.young.size * 2 >= s.affinity_max_entries) {
      this.old = this.young;
      this.young = new Map();
    }
  }
}

/** The member of `group` serving as `provider`, or undefined (the provider left the group). */
function memberOf(group: Group, provider: string): Member | undefined {
  for (const m of group.members) if (m.provider.name === provider) return m;
  return undefined;
}
