/**
 * Instances on a shared store see each other's runtime changes by polling `admin:version`
 * every POLL_MS (a full re-read every RESYNC_MS covers a lost bump); a store one process opens
 * is not polled. docs/design.md "Store and processes".
 */
import type { RuntimeKeyRecord } from '../../lib/keys.ts';
import type { ProviderRecord, RuntimeRecords } from './records.ts';
import type { Change, RuntimeHost, RuntimeState, Unreadable } from './state.ts';

/** How often an instance on a shared store checks `admin:version`. */
export const POLL_MS = 1000;
/** Re-read the records this often even when the version did not move. */
const RESYNC_MS = 30_000;

/** The stored provider records and key hashes as they are now, and the records that cannot be read. */
export interface StoredRecords {
  stored: Map<string, ProviderRecord>;
  keyRecords: Map<string, RuntimeKeyRecord>;
  unreadable: Unreadable;
}

export class Replication {
  private readonly host: RuntimeHost;
  private readonly records: RuntimeRecords;
  private readonly state: RuntimeState;
  private readonly apply: (change: Change) => Promise<string[]>;
  /** `admin:version` as of the records this instance has applied. */
  private seen = 0;
  private poller: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private lastSync = 0;

  /** `apply` installs a change (runtime.ts): what polling found is applied the way a local change is. */
  constructor(host: RuntimeHost, records: RuntimeRecords, state: RuntimeState, apply: (change: Change) => Promise<string[]>) {
    this.host = host;
    this.records = records;
    this.state = state;
    this.apply = apply;
  }

  /** `admin:version` now, on a shared store (read before the records: a change stored in between is then seen as a new version); else undefined. */
  async version(): Promise<number | undefined> {
    return this.host.sharedStore ? await this.records.version() : undefined;
  }

  /** The stored records now; each one that cannot be read and was not reported yet is warned about once. */
  async read(): Promise<StoredRecords> {
    const unreadable: Unreadable = { providers: new Map(), keys: new Map() };
    const stored = new Map<string, ProviderRecord>();
    for (const rec of await this.records.providers((name, reason) => unreadable.providers.set(name, reason))) stored.set(rec.name, rec);
    const keyRecords = await this.records.keys((name, reason) => unreadable.keys.set(name, reason));
    this.reportUnreadable(unreadable);
    return { stored, keyRecords, unreadable };
  }

  /** Starts checking `admin:version` every POLL_MS (shared stores only); `seen`: the version read before the records. */
  start(seen: number): void {
    this.seen = seen;
    this.lastSync = Date.now();
    this.poller = setInterval(() => {
      this.polling ??= this.poll().finally(() => {
        this.polling = undefined;
      });
    }, POLL_MS);
    this.poller.unref();
  }

  /** Bumps `admin:version` (a skipped number is left for the poller; a failed bump waits for the re-read). */
  async announce(): Promise<void> {
    try {
      const n = await this.records.bump();
      if (n === this.seen + 1) this.seen = n;
    } catch (err) {
      this.host.log.warn({ err: (err as Error).message }, 'could not announce a runtime change to other instances; they pick it up within 30 s');
    }
  }

  /** Applies other instances' changes under the admin lock before a change is checked (a name just taken is a 409), always re-reading. */
  async catchUp(): Promise<void> {
    if (!this.poller) return;
    const v = await this.records.version();
    await this.sync();
    this.seen = v;
    this.lastSync = Date.now();
  }

  /** Stops polling (a poll under way finishes first). */
  async close(): Promise<void> {
    if (this.poller) clearInterval(this.poller);
    await this.polling;
  }

  private async poll(): Promise<void> {
    try {
      const v = await this.records.version();
      if (v === this.seen && Date.now() - this.lastSync < RESYNC_MS) return;
      await this.records.exclusive(() => this.sync());
      this.seen = v;
      this.lastSync = Date.now();
    } catch (err) {
      // the store is away: keep the snapshot we have, try again next tick
      this.host.log.debug({ err: (err as Error).message }, 'runtime poll failed');
    }
  }

  /** Applies the stored providers and keys as they are now, when anything changed. */
  private async sync(): Promise<void> {
    const { stored, keyRecords, unreadable } = await this.read();
    const state = this.state;
    if (sameRecords(stored, state.stored) && sameKeys(keyRecords, state.keyRecords) && sameUnreadable(unreadable, state.unreadable)) return;
    const warnings = await this.apply({ stored, keyRecords, unreadable });
    for (const w of warnings) this.host.log.warn(w);
    this.host.log.info({ providers: state.built.size, keys: state.keyRecords.size }, 'runtime providers and keys updated from the shared store');
  }

  /** Warns once about each stored record that cannot be read and was not reported yet (at start, and as other instances write them). */
  private reportUnreadable(next: Unreadable): void {
    const known = this.state.unreadable;
    for (const [name, reason] of next.keys) {
      if (known.keys.get(name) === reason) continue;
      this.host.log.warn(
        { keyName: name, reason },
        `runtime key '${name}' is stored but cannot be loaded (${reason}): its secret gets 401 until it is deleted (gw keys revoke ${name}) and created again`,
      );
    }
    for (const [name, reason] of next.providers) {
      if (known.providers.get(name) === reason) continue;
      this.host.log.warn(
        { provider: name, reason },
        `runtime provider '${name}' is stored but cannot be loaded (${reason}): it serves nothing until it is deleted (gw providers delete ${name}) and created again`,
      );
    }
  }
}

function sameRecords(a: Map<string, ProviderRecord>, b: Map<string, ProviderRecord>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, rec] of a) {
    const o = b.get(name);
    if (!o || o.created_at !== rec.created_at || JSON.stringify(o.section) !== JSON.stringify(rec.section)) return false;
  }
  return true;
}

function sameUnreadable(a: Unreadable, b: Unreadable): boolean {
  const same = (x: Map<string, string>, y: Map<string, string>) => x.size === y.size && [...x].every(([name, reason]) => y.get(name) === reason);
  return same(a.keys, b.keys) && same(a.providers, b.providers);
}

function sameKeys(a: Map<string, RuntimeKeyRecord>, b: Map<string, RuntimeKeyRecord>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const o = b.get(k);
    if (!o || JSON.stringify(o) !== JSON.stringify(v)) return false;
  }
  return true;
}
