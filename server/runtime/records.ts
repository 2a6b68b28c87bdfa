/**
 * Runtime providers and keys in the store namespace `admin:`: `provider:<name>` and
 * `key:<name>` (a secret's SHA-256, never the secret; a bare hash is read too), and
 * `version`, bumped by every change for other instances to poll.
 */
import { z } from 'zod';
import { keySettingsShape, settingsOf } from '../../lib/key-settings.ts';
import { formatPath } from '../../lib/config/error.ts';
import { MAX_PREFIX, type RuntimeKeyRecord } from '../../lib/keys.ts';
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

  /** Every stored provider record by name; an unreadable one goes to `onBad` (in gw's words: it holds an api_key). */
  async providers(onBad: (name: string, reason: string) => void): Promise<ProviderRecord[]> {
    const out: ProviderRecord[] = [];
    for await (const [k, v] of this.store.entries(PROVIDER)) {
      const name = k.slice(PROVIDER.length);
      const rec = parseJson(v) as ProviderRecord | undefined;
      if (rec === undefined) onBad(name, 'the record is not JSON');
      else if (rec === null || typeof rec.section !== 'object' || rec.section === null || Array.isArray(rec.section)) onBad(name, 'the record has no section');
      else out.push({ ...rec, name });
    }
    return out;
  }

  putProvider(rec: ProviderRecord): Promise<void> {
    return this.store.set(PROVIDER + rec.name, JSON.stringify(rec));
  }

  deleteProvider(name: string): Promise<void> {
    return this.store.delete(PROVIDER + name);
  }

  /** Every runtime key record by name; a record that cannot be read is passed to `onBad` with the reason. */
  async keys(onBad: (name: string, reason: string) => void = () => undefined): Promise<Map<string, RuntimeKeyRecord>> {
    const out = new Map<string, RuntimeKeyRecord>();
    for await (const [k, v] of this.store.entries(KEY)) {
      const name = k.slice(KEY.length);
      try {
        out.set(name, parseKeyRecord(v));
      } catch (err) {
        onBad(name, (err as Error).message);
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
  const rec = parseJson(text) as RuntimeKeyRecord | undefined;
  if (rec === undefined) throw new Error('the record is not JSON');
  if (!rec || typeof rec.hash !== 'string' || !HASH.test(rec.hash)) throw new Error('the record has no key hash');
  // a record is trusted no more than a config file: settings another gw version wrote are checked again
  const settings = storedSettings.safeParse(rec.settings ?? {});
  if (!settings.success) {
    const issue = settings.error.issues[0]!;
    const at = formatPath(issue.path);
    throw new Error(`invalid settings: ${at ? `${at}: ` : ''}${issue.message}`);
  }
  const grace = Array.isArray(rec.grace)
    ? rec.grace.filter((g) => typeof g?.hash === 'string' && HASH.test(g.hash) && Number.isFinite(Date.parse(g.until)))
    : undefined;
  return {
    hash: rec.hash,
    ...(rec.created_at ? { created_at: String(rec.created_at) } : {}),
    settings: settingsOf(settings.data),
    ...(grace?.length ? { grace } : {}),
    ...(typeof rec.prefix === 'string' && rec.prefix.length <= MAX_PREFIX ? { prefix: rec.prefix } : {}),
  };
}

/** The JSON value of `text`, or undefined when it is not JSON (the parser's message would quote the text). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Settings as stored: unknown fields (from a newer gw) are dropped, known ones checked. */
const storedSettings = z.object(keySettingsShape);
