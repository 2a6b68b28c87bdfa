/** What the runtime's parts share: the host, the state a change reads and replaces, and a change's shape. */
import type { GatewayConfig } from '../../lib/config/schema.ts';
import type { KeySettingName } from '../../lib/key-settings.ts';
import type { RuntimeKeyRecord } from '../../lib/keys.ts';
import type { PriceTable } from '../../lib/pricing/book.ts';
import type { MemberPool } from '../../lib/resilience/member.ts';
import type { Store } from '../../lib/store/types.ts';
import type { BuiltProvider, Snapshot } from '../../core/snapshot.ts';
import type { ProviderDeps } from '../build-provider.ts';
import type { ProviderRecord, RuntimeRecords } from './records.ts';

/** What the runtime needs from the gateway it runs: its deps, and where the snapshot lives. */
export interface RuntimeHost extends ProviderDeps {
  store: Store;
  /** Other gw instances may share the store (StorePlugin.shared): their changes are polled. */
  sharedStore: boolean;
  members: MemberPool;
  /** The current snapshot. */
  readonly snapshot: Snapshot;
  /** Installs a new snapshot (one assignment). */
  swap(next: Snapshot): void;
  /** The gateway's clock, epoch ms. */
  now(): number;
  /** Key settings the enabled extensions enforce; undefined until they are set up. */
  honoredKeySettings(): ReadonlySet<KeySettingName> | undefined;
  /** The bundled price table the host loaded, if any (lib/pricing/book.ts). */
  readonly priceTable?: PriceTable;
}

/** Stored runtime records gw cannot read (by name → the reason): listed, reported, deletable, never dropped silently. */
export interface Unreadable {
  providers: Map<string, string>;
  keys: Map<string, string>;
}

/** The providers and keys as applied; each change replaces its maps whole (never edited in place). */
export interface RuntimeState {
  /** File providers as built, config order. */
  file: Map<string, BuiltProvider>;
  /** Every stored runtime provider record, built or not. */
  stored: Map<string, ProviderRecord>;
  /** Built runtime providers: stored ones not shadowed by a file provider. */
  built: Map<string, BuiltProvider>;
  /** Stored runtime providers that failed to build, with the reason (their records are in `stored`). */
  unbuilt: Map<string, string>;
  keyRecords: Map<string, RuntimeKeyRecord>;
  unreadable: Unreadable;
}

/** The inputs of the next snapshot; `apply` reads what is not given from the current state. */
export interface Change {
  config?: GatewayConfig;
  stored?: Map<string, ProviderRecord>;
  keyRecords?: Map<string, RuntimeKeyRecord>;
  /** Providers already built for these stored records (admin create). */
  prebuilt?: Map<string, BuiltProvider>;
  /** Stored records that cannot be read, by name, with the reason. */
  unreadable?: Unreadable;
}

/** Commits a checked change once: `save` to the store, apply, tell the others; the warnings of applying it. */
export type Commit = (next: Change, save?: () => Promise<void>) => Promise<string[]>;

/** Runs `fn` as a runtime change (runtime.ts `change`): under the admin lock, caught up with the other instances. */
export type RunChange = <T>(fn: (commit: Commit) => Promise<T>) => Promise<T>;

/** What the admin API's parts (provider-admin.ts, key-admin.ts) share: the host, the stored records, the state, and the change they run in. */
export abstract class AdminPart {
  protected readonly host: RuntimeHost;
  protected readonly records: RuntimeRecords;
  protected readonly state: RuntimeState;
  protected readonly change: RunChange;

  constructor(host: RuntimeHost, records: RuntimeRecords, state: RuntimeState, change: RunChange) {
    this.host = host;
    this.records = records;
    this.state = state;
    this.change = change;
  }

  /** Deletes `name` when it is an unreadable record of `what` (the one change it allows); true then. */
  protected async dropUnreadable(commit: Commit, what: keyof Unreadable, name: string, remove: () => Promise<void>): Promise<boolean> {
    const unreadable = this.state.unreadable;
    if (!unreadable[what].has(name)) return false;
    const next = new Map(unreadable[what]);
    next.delete(name);
    await commit({ unreadable: { ...unreadable, [what]: next } }, remove);
    if (what === 'keys') this.host.log.info({ keyName: name }, 'unreadable key record deleted');
    else this.host.log.info({ provider: name }, 'unreadable provider record deleted');
    return true;
  }
}
