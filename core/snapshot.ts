/**
 * The runtime snapshot: what a request reads of the running configuration, one immutable value
 * captured at arrival, so a change mid-request never mixes old providers with new fallbacks.
 */
import type { GatewayConfig } from '../lib/config/schema.ts';
import { KeyTable, type RuntimeKeyRecord } from '../lib/keys.ts';
import type { Provider } from '../lib/provider.ts';
import { apiKeysOf, SecretRedactor } from '../lib/redact.ts';
import type { MemberPool, MemberSettings } from '../lib/resilience/member.ts';
import { RoutingTable } from './routing.ts';
import { compileConfigured, PriceBook, type PricedProvider, type PriceTable } from '../lib/pricing/book.ts';
import { specOf } from '../lib/pricing/schema.ts';

export interface Snapshot {
  readonly config: GatewayConfig;
  readonly table: RoutingTable;
  readonly keys: KeyTable;
  /** Every routed provider's api_key as one matcher, for upstream error text (lib/redact.ts). */
  readonly secrets: SecretRedactor;
  /** Increases by one with every swap on this instance. */
  readonly version: number;
  /** The price of every (provider, model) routed (lib/pricing/book.ts). */
  readonly prices: PriceBook;
}

/** A provider built from a section, with what the core read from that section. */
export interface BuiltProvider {
  readonly provider: Provider;
  /** The section it was built from (config file or stored record), secrets included: never listed as is. */
  readonly section: Record<string, unknown>;
  /** Serialized section: an unchanged section keeps its provider (and its breaker). */
  readonly json: string;
  /** Per-provider settings read by the core for dispatch (`max_retries`, `weight`, `max_output_tokens`). */
  readonly routing: MemberSettings;
  /** Its prices and the kind whose bundled prices apply (`pricing` of the section). */
  readonly pricing: PricedProvider;
}

/** What a snapshot is made of. */
export interface ReconcileInput {
  config: GatewayConfig;
  /** File providers, config order. */
  file: ReadonlyMap<string, BuiltProvider>;
  /** Runtime providers routed to (stored, not shadowed by the file), name order. */
  runtime: ReadonlyMap<string, BuiltProvider>;
  /** Runtime keys as stored (hashes and settings), by name. */
  keyRecords: ReadonlyMap<string, RuntimeKeyRecord>;
  /** The gateway's members: reconfigured with this snapshot's settings. */
  members: MemberPool;
  version: number;
  /** The bundled price table the host loaded, if any. */
  priceTable?: PriceTable;
}

/** Builds a snapshot, for startup, reloads, admin changes and replication alike; no I/O, but reconfigures its members. */
export function reconcile(input: ReconcileInput): Snapshot {
  const { config, members } = input;
  const breaker = { failures: config.routing.breaker_failures, cooldownMs: config.routing.breaker_cooldown_seconds * 1000 };
  const routed = [];
  const apiKeys: string[] = [];
  const priced: PricedProvider[] = [];
  for (const b of input.file.values()) {
    routed.push(members.configure(b.provider, b.routing, breaker));
    apiKeysOf(b.section, apiKeys);
    priced.push(b.pricing);
  }
  for (const [name, b] of input.runtime) {
    if (input.file.has(name)) continue;
    routed.push(members.configure(b.provider, b.routing, breaker));
    apiKeysOf(b.section, apiKeys);
    priced.push(b.pricing);
  }
  const configPrices = compileConfigured(Object.fromEntries(Object.entries(config.pricing).map(([m, p]) => [m, specOf(p)])), 'config');
  return Object.freeze({
    config,
    table: new RoutingTable(routed, config.aliases, config.routing, config.fallbacks),
    keys: new KeyTable(config.keys, input.keyRecords),
    secrets: new SecretRedactor(apiKeys),
    version: input.version,
    prices: new PriceBook(configPrices, priced, input.priceTable),
  });
}
