/**
 * The running gateway's state: config, store, hooks, providers, keys, extensions.
 * Built once from a config file by `createGateway`; the HTTP app reads it per request.
 */
import { isAbsolute, join } from 'node:path';
import type { Logger } from 'pino';
import type { Middleware } from 'koa';
import { ConfigError } from './config/error.ts';
import type { GatewayConfig } from './config/schema.ts';
import { createHooks, type Hooks } from './hooks.ts';
import { KeyTable } from './keys.ts';
import type { AdminRoutes, ExtensionHandle, GatewayInfo, ProviderPlugin } from './plugins/contract.ts';
import { GatewayMetrics } from './metrics/metrics.ts';
import { findPlugin } from './plugins/loader.ts';
import type { Provider } from './provider.ts';
import { tapHealth } from './resilience/health.ts';
import { setMemberSettings } from './resilience/member.ts';
import { RoutingTable } from './routing.ts';
import { attachRuntime, type Runtime } from './runtime/runtime.ts';
import { openStore } from './store/open.ts';
import type { Store } from './store/types.ts';

/** An admin route an extension mounted. */
export interface MountedRoute {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  handler: Middleware;
  owner: string;
}

export interface Gateway {
  /** The running config; replaced whole by a reload (restart-only settings kept). */
  config: GatewayConfig;
  readonly store: Store;
  readonly hooks: Hooks;
  readonly log: Logger;
  /** Current routing table; replaced whole on runtime changes. */
  table: RoutingTable;
  keys: KeyTable;
  readonly extensions: ReadonlyArray<{ name: string; handle: ExtensionHandle | undefined }>;
  readonly adminRoutes: ReadonlyArray<MountedRoute>;
  readonly info: GatewayInfo;
  /** Runtime providers and keys, reloads (core/runtime/). */
  readonly runtime: Runtime;
  /** Prometheus metrics (`GET /metrics`), this gateway's own registry. */
  readonly metrics: GatewayMetrics;
  /** Stops extensions, providers and the store. */
  close(): Promise<void>;
}

/** Where the LevelDB store lives: `data_dir` relative to the config file. */
export function dataDir(config: GatewayConfig): string {
  return isAbsolute(config.data_dir) ? config.data_dir : join(config.dir, config.data_dir);
}

/**
 * Builds a gateway: opens the store, loads and sets up every provider and extension.
 * @throws ConfigError for a section its plugin rejects or a plugin that cannot be found.
 */
export async function createGateway(config: GatewayConfig, log: Logger): Promise<Gateway> {
  const store = await openStore(config, log);
  const opened: Array<{ close?: () => Promise<void> }> = [];
  try {
    const providers = await buildProviders(config, store, log);
    opened.push(...providers);
    const hooks = createHooks();
    const adminRoutes: MountedRoute[] = [];
    const extensions: Array<{ name: string; handle: ExtensionHandle | undefined }> = [];
    const gw: Gateway = {
      config,
      store,
      hooks,
      log,
      table: new RoutingTable(providers, config.aliases, config.routing, config.fallbacks),
      keys: new KeyTable(config.keys),
      extensions,
      adminRoutes,
      info: undefined as unknown as GatewayInfo,
      runtime: undefined as unknown as Runtime,
      metrics: undefined as unknown as GatewayMetrics,
      async close() {
        for (const e of [...gw.extensions].reverse()) await e.handle?.close?.().catch((err: Error) => log.error({ err, extension: e.name }, 'extension close failed'));
        for (const p of gw.table.providers.values()) await p.close?.().catch(() => undefined);
        await gw.runtime?.close();
        await store.close();
      },
    };
    (gw as { info: GatewayInfo }).info = {
      config: () => gw.config,
      resolveModel: (m) => gw.table.resolve(m),
      models: () => gw.table.models(),
      keyNames: () => gw.keys.names(),
    };
    (gw as { runtime: Runtime }).runtime = await attachRuntime(gw, providers);
    for (const [name, section] of Object.entries(config.extensions)) {
      const found = await findPlugin('extension', name);
      if (!found) throw new ConfigError(config.file, ['extensions', name], `no built-in extension '${name}' and the npm package gw-plugin-${name} is not installed`);
      const parsed = found.plugin.configSchema.safeParse(section);
      if (!parsed.success) throw ConfigError.fromZod(config.file, ['extensions', name], parsed.error);
      const routes = adminRouteRegistrar(adminRoutes, name);
      const handle = await found.plugin.setup({ name, config: parsed.data, store: store.namespace(`ext:${name}`), hooks, log: log.child({ extension: name }), routes, gateway: gw.info });
      extensions.push({ name, handle: handle ?? undefined });
    }
    // after the extensions: its cache-miss tap must come after theirs
    (gw as { metrics: GatewayMetrics }).metrics = new GatewayMetrics({ providers: () => gw.table.providers.values(), pricing: () => gw.config.pricing });
    gw.metrics.tapCacheMisses(hooks);
    tapHealth(hooks, (name) => gw.table.providers.get(name));
    return gw;
  } catch (err) {
    for (const p of opened) await p.close?.().catch(() => undefined);
    await store.close();
    throw err;
  }
}

function adminRouteRegistrar(list: MountedRoute[], owner: string): AdminRoutes {
  const add = (method: MountedRoute['method']) => (path: string, handler: Middleware) => {
    list.push({ method, path, handler, owner });
  };
  return { get: add('GET'), post: add('POST'), delete: add('DELETE') };
}

/**
 * Sets up one provider per `[providers.<name>]`: the kind's plugin (built-in or
 * gw-plugin-<kind>), else the common-format kind when `base_url` is given.
 * Models are discovered when the section lists none; a failed discovery leaves the
 * provider serving nothing, with a warning (DESIGN.md "Routing").
 */
export async function buildProviders(config: GatewayConfig, store: Store, log: Logger): Promise<Provider[]> {
  const out: Provider[] = [];
  for (const [name, section] of Object.entries(config.providers)) {
    out.push(await buildProvider(name, section as Record<string, unknown>, config.file, store, log));
  }
  return out;
}

/**
 * One provider from its section (config file or admin API).
 * `discovery: 'throw'` (admin API) rethrows a failed model discovery instead of warning.
 * @throws ConfigError naming `providers.<name>` and the field at fault.
 */
export async function buildProvider(name: string, section: Record<string, unknown>, file: string, store: Store, log: Logger, opts: { discovery?: 'warn' | 'throw' } = {}): Promise<Provider> {
  const kind = (section.kind as string | undefined) ?? name;
  let plugin: ProviderPlugin<unknown> | undefined = (await findPlugin('provider', kind))?.plugin;
  if (!plugin && typeof section.base_url === 'string') plugin = (await findPlugin('provider', 'openai'))?.plugin;
  if (!plugin) {
    throw new ConfigError(file, ['providers', name], `unknown provider kind '${kind}': no plugins/providers/${kind} and no npm package gw-plugin-${kind}; give base_url for an OpenAI-compatible upstream`);
  }
  const parsed = plugin.configSchema.safeParse(section);
  if (!parsed.success) throw ConfigError.fromZod(file, ['providers', name], parsed.error);
  const provider = await plugin.setup({ name, config: parsed.data, store: store.namespace(`provider:${name}`), log: log.child({ provider: name }) });
  const base = parsed.data as { max_retries?: number; weight?: number };
  setMemberSettings(provider, { maxRetries: base.max_retries ?? 2, weight: base.weight ?? 1 });
  if (provider.models.length === 0 && provider.listModels) {
    try {
      provider.models = await provider.listModels(AbortSignal.timeout(15_000));
      log.info({ provider: name, models: provider.models.length }, 'models discovered');
    } catch (err) {
      if (opts.discovery === 'throw') {
        await provider.close?.().catch(() => undefined);
        throw err;
      }
      log.warn({ provider: name, err: (err as Error).message }, 'model discovery failed; the provider serves no model until it succeeds');
    }
  }
  return provider;
}
