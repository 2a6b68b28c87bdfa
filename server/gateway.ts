/**
 * The running gateway: store, connection pool, hooks, routes, runtime (snapshots of config,
 * providers and keys), extensions, metrics. Built once from a config file by
 * `createGateway`; the HTTP app reads `snapshot` once per request.
 */
import type { Middleware } from 'koa';
import type { Agent } from 'undici';
import type { Logger } from 'pino';
import { mountAdminRoutes } from './admin/routes.ts';
import { ConfigError } from '../lib/config/error.ts';
import type { GatewayConfig } from '../lib/config/schema.ts';
import { createHooks, type Hooks } from '../core/hooks.ts';
import { createAgent } from '../lib/http/upstream.ts';
import { GatewayMetrics } from './metrics/metrics.ts';
import { generateHandler } from '../core/pipeline/generate.ts';
import { createPipeline } from '../core/pipeline/pipeline.ts';
import type { ExtensionHandle } from '../core/plugins/contract.ts';
import type { GatewayInfo } from '../lib/gateway-info.ts';
import { type EnabledFormat, loadFormats } from '../core/plugins/load-formats.ts';
import { findPlugin, GW_VERSION, runSetup } from '../core/plugins/loader.ts';
import { openStore } from './open-store.ts';
import type { ProviderHealth } from '../lib/resilience/health.ts';
import { MemberPool } from '../lib/resilience/member.ts';
import { mountUi } from './console.ts';
import { mountCoreRoutes } from './host-routes.ts';
import { OPENAI_ERRORS, RouteRegistry } from '../lib/routes/registry.ts';
import { AffinityTable } from '../lib/resilience/affinity.ts';
import { Runtime } from './runtime/runtime.ts';
import type { Snapshot } from '../core/runtime/snapshot.ts';
import type { KeySettingName } from '../lib/key-settings.ts';
import { InflightLimiter } from '../core/pipeline/inflight.ts';
import type { Store } from '../lib/store/types.ts';
import { type PriceTable, unpricedModels } from '../lib/pricing/book.ts';
import { type McpGateway, startMcp } from '../mcp/index.ts';
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
  readonly extensions: ReadonlyArray<{ name: string; handle: ExtensionHandle | undefined }>;
  /** What plugins may know about the gateway (never secrets). */
  readonly info: GatewayInfo;
  /** Runtime providers and keys, reloads (core/runtime/). */
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

const noop = async () => undefined;

/** What a caller (a test, the bench) may give a gateway beyond its config. */
export interface GatewayOptions {
  /** The clock for key expiry and budget periods, epoch ms (default `Date.now`): tests cross a period boundary without sleeping. */
  clock?: () => number;
  /** The bundled price table (the host loads it once; none: only configured prices apply). */
  priceTable?: PriceTable;
}

/**
 * Builds a gateway: opens the store, builds the first snapshot (providers, keys), sets up
 * the client formats and every extension.
 * @throws ConfigError for a section its plugin rejects or a plugin that cannot be found.
 */
export async function createGateway(config: GatewayConfig, log: Logger, opts: GatewayOptions = {}): Promise<Gateway> {
  const clock = opts.clock ?? Date.now;
  const { store, name: storeName, shared: sharedStore } = await openStore(config, log);
  const agent = createAgent();
  const members = new MemberPool();
  const hooks = createHooks();
  const routes = new RouteRegistry();
  const extensions: Array<{ name: string; handle: ExtensionHandle | undefined }> = [];
  let snapshot = undefined as unknown as Snapshot;
  let runtime: Runtime | undefined;
  let mcp: McpGateway | undefined;
  /** Key settings the enabled extensions enforce: known once they are all set up. */
  let honored: Set<KeySettingName> | undefined;
  /** The unpriced models last warned about: a snapshot that changes nothing about them warns nothing. */
  let unpricedWarned = '';
  const warnUnpriced = (s: Snapshot) => {
    const models = unpricedModels(s);
    const text = models.join('\n');
    if (text !== unpricedWarned && models.length)
      log.warn(
        { models },
        'no price for these models in [pricing], their providers\' pricing or the bundled table: their cost is null (the budget refuses them unless unpriced = "allow")',
      );
    unpricedWarned = text;
  };
  const info: GatewayInfo = {
    maxCost: (model, prompt, output, asked) => snapshot.prices.maxCost(model, snapshot.table.find(model)?.members ?? [], prompt, output, clock(), asked),
    priced: (model) => snapshot.prices.priced(model, snapshot.table.find(model)?.members ?? []),
    outputCap(model) {
      let most: number | undefined;
      for (const m of snapshot.table.find(model)?.members ?? []) {
        const cap = m.settings.outputCap?.(model);
        if (cap === undefined) return undefined;
        if (most === undefined || cap > most) most = cap;
      }
      return most;
    },
    resolveModel: (m) => snapshot.table.resolve(m),
    models: () => snapshot.table.models(),
    keyNames: () => snapshot.keys.names(),
    key: (name) => snapshot.keys.info(name),
    keyTags: (name) => snapshot.keys.info(name)?.tags,
    providers: () =>
      Array.from(snapshot.table.members.values(), (m) => ({
        name: m.provider.name,
        kind: m.provider.kind,
        circuit: m.breaker.state,
        health: () => m.health.report(),
      })),
    now: clock,
    version: GW_VERSION,
    maxBodyBytes: config.max_body_bytes,
  };
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
    info,
    get runtime() {
      return runtime!;
    },
    members,
    affinity: new AffinityTable(sharedStore ? store.namespace('affinity') : undefined, log),
    metrics: new GatewayMetrics({ providers: () => snapshot.table.members.values() }),
    agent,
    inflight: new InflightLimiter(store),
    clock,
    async close() {
      await mcp?.close();
      for (const e of [...extensions].reverse())
        await e.handle?.close?.().catch((err: Error) => log.error({ err, extension: e.name }, 'extension close failed'));
      for (const p of runtime?.providers() ?? []) await p.close?.().catch(() => undefined);
      await runtime?.close();
      await agent.close().catch(() => undefined);
      await store.close();
    },
  };
  try {
    runtime = new Runtime({
      store,
      sharedStore,
      log,
      dispatcher: agent,
      queues: gw.metrics,
      members,
      now: clock,
      honoredKeySettings: () => honored,
      priceTable: opts.priceTable,
      get snapshot() {
        return snapshot;
      },
      swap: (next) => {
        snapshot = next;
        warnUnpriced(next);
      },
    });
    await runtime.start(config);
    const formats = await loadFormats(config);
    const setUp = (f: EnabledFormat) => {
      const plugin = f.found.plugin;
      const id = plugin.id;
      const pipeline = createPipeline(gw, id);
      return runSetup(f.found, id, () =>
        plugin.setup({
          config: f.config,
          store: store.namespace(`format:${id}`),
          log: log.child({ format: id }),
          hooks,
          gateway: info,
          pipeline,
          route: (r) => {
            const handler = r.generate ? generateHandler(pipeline, hooks, id, r.generate) : r.handler;
            routes.add({ ...r, handler, auth: r.auth ?? 'key', keyFrom: r.keyFrom ?? plugin.keyFrom, errors: plugin, owner: id });
          },
        }),
      );
    };
    for (const f of formats) if (f.found.source === 'builtin') await setUp(f);
    mountCoreRoutes(routes, gw.metrics);
    mountUi(routes);
    mountAdminRoutes(routes, () => gw.runtime, log);
    // after every built-in route: a third-party format that claims one fails in its own setup, naming itself
    for (const f of formats) if (f.found.source === 'npm') await setUp(f);
    for (const [name, section] of Object.entries(config.extensions)) {
      const found = await findPlugin('extension', name);
      if (!found)
        throw new ConfigError(config.file, ['extensions', name], `no built-in extension '${name}' and the npm package gw-plugin-${name} is not installed`);
      const parsed = found.plugin.configSchema.safeParse(section);
      if (!parsed.success) throw ConfigError.fromZod(config.file, ['extensions', name], parsed.error);
      const add = (method: 'GET' | 'POST' | 'DELETE') => (path: string, handler: Middleware) =>
        routes.add({
          method,
          path,
          auth: 'admin',
          errors: OPENAI_ERRORS,
          body: method === 'POST',
          handler: (ctx) => handler(ctx, noop),
          owner: `extension ${name}`,
        });
      const handle = await runSetup(found, name, () =>
        found.plugin.setup({
          name,
          config: parsed.data,
          store: store.namespace(`ext:${name}`),
          hooks,
          log: log.child({ extension: name }),
          routes: { get: add('GET'), post: add('POST'), delete: add('DELETE') },
          gateway: info,
          metrics: {
            counter: (metric, help, collect) => gw.metrics.plugin('counter', metric, help, collect),
            gauge: (metric, help, collect) => gw.metrics.plugin('gauge', metric, help, collect),
          },
        }),
      );
      extensions.push({ name, handle: handle ?? undefined });
      for (const k of found.plugin.keySettings ?? []) (honored ??= new Set()).add(k);
    }
    honored ??= new Set();
    for (const w of runtime.keyWarnings()) log.warn(w);
    // after the extensions: its cache-miss tap must come after theirs
    gw.metrics.tapCacheMisses(hooks);
    tapHealth(hooks, (name) => snapshot.table.members.get(name)?.health);
    // the MCP gateway (mcp/, docs/mcp.md): after the extensions, whose hooks its tool calls run
    mcp = await startMcp({
      get snapshot() {
        return snapshot;
      },
      store,
      sharedStore,
      hooks,
      log,
      routes,
      metrics: gw.metrics,
      inflight: gw.inflight,
      clock,
      affinity: gw.affinity,
      mcpMetrics: new McpCallMetrics(gw.metrics.registry),
    });
    return gw;
  } catch (err) {
    await mcp?.close();
    for (const p of runtime?.providers() ?? []) await p.close?.().catch(() => undefined);
    await runtime?.close();
    await agent.close().catch(() => undefined);
    await store.close();
    throw err;
  }
}

/**
 * Records the latency of every answered request, and streams that failed after their
 * first byte, from onFinish. `healthOf` finds a provider's health (its Member's) by name
 * in the current routing table.
 */
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
