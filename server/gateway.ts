/** The running gateway, built once from a config file by `createGateway`; the app reads `snapshot` once per request. */
import type { Agent } from 'undici';
import type { Logger } from 'pino';
import { mountAdminRoutes } from './admin/routes.ts';
import type { GatewayConfig } from '../lib/config/schema.ts';
import { createHooks, type Hooks } from '../core/hooks.ts';
import { createAgent } from '../lib/http/upstream.ts';
import { GatewayMetrics } from './metrics/metrics.ts';
import type { GatewayInfo } from '../lib/gateway-info.ts';
import { openStore } from './open-store.ts';
import type { ProviderHealth } from '../lib/resilience/health.ts';
import { MemberPool } from '../lib/resilience/member.ts';
import { mountUi } from './console.ts';
import { mountCoreRoutes } from './host-routes.ts';
import { RouteRegistry } from '../lib/http/routes.ts';
import { AffinityTable } from '../lib/resilience/affinity.ts';
import { changedKeyNames } from './runtime/key-changes.ts';
import { Runtime } from './runtime/runtime.ts';
import type { Snapshot } from '../core/snapshot.ts';
import type { KeySettingName } from '../lib/key-settings.ts';
import { InflightLimiter } from '../core/pipeline/inflight.ts';
import type { Store } from '../lib/store/types.ts';
import { type PriceTable, unpricedWarner } from '../lib/pricing/book.ts';
import type { ExchangeObserver } from '../lib/http/exchange.ts';
import { type ExtensionPowers, pathResolver } from '../lib/plugin-powers.ts';
import { gatewaySecrets } from './secrets.ts';
import type { SecretScrubber } from '../lib/secrets/scrubber.ts';
import { gatewayInfo } from './gateway-info.ts';
import { keyHeadersOf, loadFormats, type RunningExtension, setUpExtensions, setUpFormats } from './set-up.ts';
import { censoringKeyHeaders } from './log.ts';
import { type McpGateway, startMcp } from '../mcp/index.ts';
import type { McpHost } from '../mcp/host.ts';
import { McpCallMetrics } from './metrics/mcp.ts';

export interface Gateway {
  /** The current runtime snapshot (config, routing table, keys); replaced whole by every change. */
  readonly snapshot: Snapshot;
  readonly store: Store;
  /** The store plugin's name (`level`, `redis`…) and whether several processes may share the store. */
  readonly storeKind: { name: string; shared: boolean };
  readonly hooks: Hooks;
  readonly log: Logger;
  /** Every HTTP route: core, client formats, admin API, extensions' admin routes. */
  readonly routes: RouteRegistry;
  readonly extensions: readonly RunningExtension[];
  /** What plugins may know about the gateway (never secrets). */
  readonly info: GatewayInfo;
  /** What extensions' setups may do beyond hooks (lib/plugin-powers.ts). */
  readonly powers: ExtensionPowers;
  /** Runtime providers and keys, reloads (runtime/). */
  readonly runtime: Runtime;
  /** Routing state of every provider (breakers, statistics), across snapshots. */
  readonly members: MemberPool;
  /** Conversations' members (prompt-cache affinity), across snapshots; shared through the store when other instances share it. */
  readonly affinity: AffinityTable;
  /** Prometheus metrics (`GET /metrics`), this gateway's own registry. */
  readonly metrics: GatewayMetrics;
  /** The upstream connection pool. */
  readonly agent: Agent;
  /** `max_parallel_requests` of virtual keys (in-flight holds in the store). */
  readonly inflight: InflightLimiter;
  /** The clock (epoch ms) for key expiry and budget periods; `Date.now` unless a test injects one. */
  readonly clock: () => number;
  /** Stops extensions, providers, the pool and the store. */
  close(): Promise<void>;
}

/** What a caller (a test, the bench) may give a gateway beyond its config. */
export interface GatewayOptions {
  /** The clock for key expiry and budget periods, epoch ms (default `Date.now`): tests cross a period boundary without sleeping. */
  clock?: () => number;
  /** The bundled price table (the host loads it once; none: only configured prices apply). */
  priceTable?: PriceTable;
}

/**
 * Builds a gateway: formats loaded (their key headers censored in the log), the store opened,
 * the first snapshot, formats and extensions set up. @throws ConfigError, PluginError (core/plugins/load.ts).
 */
export async function createGateway(config: GatewayConfig, rootLog: Logger, opts: GatewayOptions = {}): Promise<Gateway> {
  const clock = opts.clock ?? Date.now;
  const formats = await loadFormats(config);
  const log = censoringKeyHeaders(rootLog, keyHeadersOf(formats));
  const { store, name: storeName, shared: sharedStore } = await openStore(config, log);
  const agent = createAgent();
  const members = new MemberPool();
  const hooks = createHooks();
  const routes = new RouteRegistry();
  const extensions: RunningExtension[] = [];
  let snapshot = undefined as unknown as Snapshot;
  let runtime: Runtime | undefined;
  let mcp: McpGateway | undefined;
  let honored: Set<KeySettingName> | undefined; // the key settings extensions enforce, once all are set up
  const warnUnpriced = keepsCosts(config) ? unpricedWarner(log) : undefined;
  const { powers, observers, secrets } = extensionPowers(config, () => snapshot);
  const gw: Gateway = {
    get snapshot() {
      return snapshot;
    },
    store,
    storeKind: { name: storeName, shared: sharedStore },
    hooks,
    log,
    routes,
    extensions,
    info: gatewayInfo(() => snapshot, clock, config),
    powers,
    get runtime() {
      return runtime!;
    },
    members,
    affinity: new AffinityTable(sharedStore ? store.namespace('affinity') : undefined, log),
    metrics: new GatewayMetrics({ providers: () => snapshot.table.members.values() }),
    agent,
    inflight: new InflightLimiter(store),
    clock,
    close: () => closeGateway({ mcp, extensions, runtime, agent, store, log }),
  };
  try {
    runtime = new Runtime({
      store,
      sharedStore,
      log,
      observers,
      secrets,
      configDir: config.dir,
      members,
      now: clock,
      priceTable: opts.priceTable,
      dispatcher: agent,
      queues: gw.metrics,
      honoredKeySettings: () => honored,
      get snapshot() {
        return snapshot;
      },
      swap: (next) => {
        const before = snapshot;
        snapshot = next;
        warnUnpriced?.(next);
        if (!honored || !before) return; // startup: told once every extension is set up
        const names = changedKeyNames(before.keys, next.keys);
        if (names.length) hooks.onKeysChange.call({ names, startup: false });
      },
    });
    await runtime.start(config);
    await setUpFormats(gw, formats, 'builtin');
    mountHostRoutes(gw);
    // after every built-in route: a third-party format that claims one fails in its own setup, naming itself
    await setUpFormats(gw, formats, 'npm');
    honored = await setUpExtensions(gw, config, extensions);
    started(gw);
    mcp = await startMcp(mcpHost(gw)); // after the extensions, whose hooks its tool calls run (docs/mcp.md)
    return gw;
  } catch (err) {
    await gw.close();
    throw err;
  }
}

/** What extensions may do beyond hooks, and the exchange observers every provider's upstream client reads at each request. */
function extensionPowers(config: GatewayConfig, current: () => Snapshot): { powers: ExtensionPowers; observers: ExchangeObserver[]; secrets: SecretScrubber } {
  const observers: ExchangeObserver[] = [];
  const secrets = gatewaySecrets(current);
  return { powers: { upstream: { observe: (observer) => void observers.push(observer) }, resolvePath: pathResolver(config.dir), secrets }, observers, secrets };
}

/** Spend, usage or the request log keep or show a request's cost: unpriced models are worth a warning. */
function keepsCosts(config: GatewayConfig): boolean {
  return ['budget', 'usage', 'request_log'].some((name) => Object.hasOwn(config.extensions, name));
}

/** The host's own routes: /health, /metrics, /openapi.json, /docs, the console, the admin API. */
function mountHostRoutes(gw: Gateway): void {
  mountCoreRoutes(gw.routes, gw.metrics);
  mountUi(gw.routes);
  mountAdminRoutes(gw.routes, () => gw.runtime, gw.log);
}

/** Once every plugin is set up: the keys' warnings, the first onKeysChange, then the gateway's own taps (after the extensions': the cache-miss counter must run last). */
function started(gw: Gateway): void {
  for (const warning of gw.runtime.keys.warnings()) gw.log.warn(warning);
  gw.hooks.onKeysChange.call({ names: gw.snapshot.keys.names().sort(), startup: true });
  gw.metrics.tapCacheMisses(gw.hooks);
  tapHealth(gw.hooks, (name) => gw.snapshot.table.members.get(name)?.health);
}

/** The MCP gateway's view of the gateway (mcp/host.ts): its snapshot read live at each call. */
function mcpHost(gw: Gateway): McpHost {
  return {
    get snapshot() {
      return gw.snapshot;
    },
    store: gw.store,
    sharedStore: gw.storeKind.shared,
    hooks: gw.hooks,
    log: gw.log,
    routes: gw.routes,
    metrics: gw.metrics,
    inflight: gw.inflight,
    clock: gw.clock,
    affinity: gw.affinity,
    mcpMetrics: new McpCallMetrics(gw.metrics.registry),
  };
}

/** Stops what a gateway started, in reverse order; for `close` and a startup that failed part way. */
async function closeGateway(parts: {
  mcp: McpGateway | undefined;
  extensions: readonly RunningExtension[];
  runtime: Runtime | undefined;
  agent: Agent;
  store: Store;
  log: Logger;
}): Promise<void> {
  await parts.mcp?.close();
  for (const e of [...parts.extensions].reverse())
    await e.handle?.close?.().catch((err: Error) => parts.log.error({ err, extension: e.name }, 'extension close failed'));
  for (const p of parts.runtime?.builtProviders() ?? []) await p.close?.().catch(() => undefined);
  await parts.runtime?.close();
  await parts.agent.close().catch(() => undefined);
  await parts.store.close();
}

/** Records each answered request's latency, and streams failed after their first byte, in its provider's health. */
function tapHealth(hooks: Hooks, healthOf: (provider: string) => ProviderHealth | undefined): void {
  hooks.onFinish.tap('health', (f) => {
    const rc = f.rc;
    // an MCP tool call's provider is its MCP server, never a model provider
    if (rc?.provider === undefined || rc.cacheHit || rc.operation === 'tool') return;
    const h = healthOf(rc.provider);
    if (!h) return;
    if (f.status < 400) h.served(f.totalMs, f.ttfbMs);
    else if (rc.firstByteMs > 0 && f.error?.def?.upstream) h.streamFailed(f.error);
  });
}
