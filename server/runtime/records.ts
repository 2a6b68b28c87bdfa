/**
 * Runtime-created providers and keys, kept in the store namespace `admin:` so they survive
 * a restart (and, with a shared store, are seen by every instance).
 *
 *   admin:provider:<name>  JSON ProviderRecord (incl. api_key: the store is the server's own)
 *   admin:key:<name>       JSON RuntimeKeyRecord: SHA-256 hex of the secret, the key's
 *                          settings, earlier secrets in a grace period (hashes); the secret
 *                          itself is never stored. (Before keys had settings the value was
 *                          the bare hash: still read.)
 *   admin:version          counter `{n}`, +1 after every change: instances sharing the store
 *                          poll it to learn that they must re-read the records
 */
import { z } from 'zod';
import { keySettingsShape, settingsOf } from '../../lib/key-settings.ts';
import type { RuntimeKeyRecord } from '../../lib/keys.ts';
import { ChangeCounter } from '../../lib/store/changes.ts';
import type { Store } from '../../lib/store/types.ts';

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
  private readonly changes: ChangeCounter;

  constructor(root: Store) {
    this.store = root.namespace('admin');
    this.changes = new ChangeCounter(this.store, VERSION);
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

  /** Every runtime key record by name; unreadable records are skipped and reported. */
  async keys(onBad: (name: string, err: Error) => void = () => undefined): Promise<Map<string, RuntimeKeyRecord>> {
    const out = new Map<string, RuntimeKeyRecord>();
    for await (const [k, v] of this.store.entries(KEY)) {
      const name = k.slice(KEY.length);
      try {
        out.set(name, parseKeyRecord(v));
      } catch (err) {
        onBad(name, err as Error);
      }
    }
    return out;
  }

  putKey(name: string, rec: RuntimeKeyRecord): Promise<void> {
    return this.store.set(KEY + name, JSON.stringify(rec));
  }

  deleteKey(name: string): Promise<void> {
    return this.store.delete(KEY + name);
  }

  /** The change counter (0 before the first change). */
  version(): Promise<number> {
    return this.changes.version();
  }

  /** Announces a change to every instance sharing the store; returns the new version. */
  bump(): Promise<number> {
    return this.changes.bump();
  }

  /** Runs `fn` holding the admin lock, so changes (and reloads) never interleave. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.changes.exclusive(fn);
  }
}

const HASH = /^[0-9a-f]{64}$/;

/**
 * A stored key record: JSON, or the bare SHA-256 hex written before keys had settings.
 * @throws Error when it is neither.
 */
export function parseKeyRecord(text: string): RuntimeKeyRecord {
  if (HASH.test(text)) return { hash: text, settings: {} };
  const rec = JSON.parse(text) as RuntimeKeyRecord;
  if (!rec || typeof rec.hash !== 'string' || !HASH.test(rec.hash)) throw new Error('record has no key hash');
  // a record is trusted no more than a config file: settings another gw version wrote are checked again
  const settings = storedSettings.safeParse(rec.settings ?? {});
  if (!settings.success) throw new Error(`invalid settings: ${settings.error.issues[0]?.message}`);
  const grace = Array.isArray(rec.grace)
    ? rec.grace.filter((g) => typeof g?.hash === 'string' && HASH.test(g.hash) && Number.isFinite(Date.parse(g.until)))
    : undefined;
  return {
    hash: rec.hash,
    ...(rec.created_at ? { created_at: String(rec.created_at) } : {}),
    settings: settingsOf(settings.data),
    ...(grace?.length ? { grace } : {}),
  };
}

/** Settings as stored: unknown fields (from a newer gw) are dropped, known ones checked. */
const storedSettings = z.object(keySettingsShape);
