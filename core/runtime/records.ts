/**
 * Runtime-created providers and keys, kept in the store namespace `admin:` so they survive
 * a restart (and, with a shared store, are seen by every instance).
 *
 *   admin:provider:<name>  JSON ProviderRecord (incl. api_key: the store is the server's own)
 *   admin:key:<name>       SHA-256 hex of the key; the key itself is never stored
 *   admin:version          counter `{n}`, +1 after every change: instances sharing the store
 *                          poll it to learn that they must re-read the records
 */
import type { Store } from '../store/types.ts';

/** A provider created through the admin API, as stored. */
export interface ProviderRecord {
  name: string;
  /** ISO 8601 creation time. */
  created_at: string;
  /** The provider section exactly as a `[providers.<name>]` table would hold it (models filled). */
  section: Record<string, unknown>;
}

const PROVIDER = 'provider:';
const KEY = 'key:';
const VERSION = 'version';

/** Reads and writes the `admin:` namespace. Every write is durable when its promise resolves. */
export class RuntimeRecords {
  private readonly store: Store;

  constructor(root: Store) {
    this.store = root.namespace('admin');
  }

  /** Every stored provider record, by name order; unreadable records are skipped and reported. */
  async providers(onBad: (name: string, err: Error) => void): Promise<ProviderRecord[]> {
    const out: ProviderRecord[] = [];
    for await (const [k, v] of this.store.entries(PROVIDER)) {
      const name = k.slice(PROVIDER.length);
      try {
        const rec = JSON.parse(v) as ProviderRecord;
        if (!rec || typeof rec.section !== 'object' || rec.section === null) throw new Error('record has no section');
        out.push({ ...rec, name });
      } catch (err) {
        onBad(name, err as Error);
      }
    }
    return out;
  }

  putProvider(rec: ProviderRecord): Promise<void> {
    return this.store.set(PROVIDER + rec.name, JSON.stringify(rec));
  }

  deleteProvider(name: string): Promise<void> {
    return this.store.delete(PROVIDER + name);
  }

  /** name → SHA-256 hex of every runtime key. */
  async keys(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for await (const [k, v] of this.store.entries(KEY)) out.set(k.slice(KEY.length), v);
    return out;
  }

  putKey(name: string, hash: string): Promise<void> {
    return this.store.set(KEY + name, hash);
  }

  deleteKey(name: string): Promise<void> {
    return this.store.delete(KEY + name);
  }

  /** The change counter (0 before the first change). */
  async version(): Promise<number> {
    return (await this.store.counters(VERSION)).n ?? 0;
  }

  /** Announces a change to every instance sharing the store; returns the new version. */
  async bump(): Promise<number> {
    return (await this.store.incr(VERSION, { n: 1 })).n!;
  }

  /** Runs `fn` holding the admin lock, so changes (and reloads) never interleave. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.withLock('changes', fn);
  }
}
