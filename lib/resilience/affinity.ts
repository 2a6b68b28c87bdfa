/**
 * Prompt-cache affinity: the turns of one conversation go to the member of a group that
 * served its last turn, so that member's prompt cache is read instead of every member
 * paying the cache write again. A conversation is named by an affinity key (a hash of the
 * gateway key, the canonical model and what the client format read from the body:
 * lib/common/affinity.ts); the key maps to a provider name.
 *
 * Two levels, so the hot path stays a Map lookup:
 *   local   at most `affinity_max_entries` keys, the least recently used dropped first
 *           (two generations, below), each ignored after `affinity_ttl_seconds` without a
 *           turn (idle TTL);
 *   shared  with a store several instances share (Redis), each mapping is also written
 *           there with the same TTL and read only on a local miss, so another instance
 *           routes the conversation to the same member. Written when it changes, and
 *           refreshed at most every quarter TTL; never awaited on the request path
 *           beyond the one read of a local miss.
 *
 * The mapping is used only while its member's circuit is closed: an open or half-open
 * member gives the request to the group's strategy, and the member that then answers
 * becomes the conversation's (a failing member's conversations move and stay moved).
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

/**
 * The affinity key of a conversation: base64url SHA-1 of the gateway key's name, the
 * canonical model and the format's source text (27 characters, whatever the source's
 * length; the source — a user id, a prompt's text — never reaches the store as is).
 */
export function affinityKey(keyName: string, model: string, source: string): string {
  return hash('sha1', `${keyName}\0${model}\0${source}`, 'base64url');
}

/**
 * The gateway's affinity mappings (local, and the shared store when there is one). Kept
 * across snapshots.
 *
 * The local bound is two generations (the hashlru scheme): mappings used lately live in
 * `young`; when it holds half the bound it becomes `old` and the previous `old` is dropped
 * whole, and a mapping found in `old` is copied into `young`. So a mapping unused for
 * about two generations goes first, a lookup is one or two Map gets, and no entry is ever
 * deleted and re-inserted: V8's Map pays for every such hole (a delete and set per hit on
 * a 100,000-entry Map measured 100+ µs, a get well under 1).
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

  /**
   * The member `key`'s conversation is mapped to, when it is in `group` and its circuit is
   * closed; else undefined (the strategy picks). Reads the shared store on a local miss;
   * a store failure is logged and counts as a miss.
   */
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
