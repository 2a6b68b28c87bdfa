/**
 * Setting up the plugins that serve requests, once at startup: the client formats (their
 * routes into the registry, each generate route run by the kernel's loop) and the
 * extensions (their config checked, their admin routes and metric families).
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Hooks } from '../core/hooks.ts';
import type { PipelineHost } from '../core/pipeline/host.ts';
import { createPipeline } from '../core/pipeline/pipeline.ts';
import { handlerFor } from '../core/pipeline/route.ts';
import type { ExtensionHandle } from '../core/plugins/contract.ts';
import type { EnabledFormat } from '../core/plugins/load-formats.ts';
import { findPlugin, runSetup } from '../core/plugins/loader.ts';
import { ConfigError } from '../lib/config/error.ts';
import type { GatewayConfig } from '../lib/config/schema.ts';
import type { GatewayInfo } from '../lib/gateway-info.ts';
import { OPENAI_ERRORS, type RouteRegistry } from '../lib/http/routes.ts';
import type { KeySettingName } from '../lib/key-settings.ts';
import type { ExtensionPowers } from '../lib/plugin-powers.ts';
import type { Store } from '../lib/store/types.ts';
import type { GatewayMetrics } from './metrics/metrics.ts';

/** What setting up plugins uses of the gateway being built (server/gateway.ts's Gateway). */
export interface SetUpHost extends PipelineHost {
  readonly store: Store;
  readonly log: Logger;
  readonly hooks: Hooks;
  readonly info: GatewayInfo;
  readonly routes: RouteRegistry;
  readonly metrics: GatewayMetrics;
  readonly powers: ExtensionPowers;
}

/** An extension set up, with the handle its setup returned (closed with the gateway). */
export interface RunningExtension {
  name: string;
  handle: ExtensionHandle | undefined;
}

const noop = async () => undefined;

/** Sets up the enabled formats that come from `source`, in order; what a format's setup throws stops startup. */
export async function setUpFormats(gw: SetUpHost, formats: readonly EnabledFormat[], source: 'builtin' | 'npm'): Promise<void> {
  for (const f of formats) {
    if (f.found.source !== source) continue;
    const plugin = f.found.plugin;
    const protocol = plugin.protocol;
    const id = protocol.id;
    const pipeline = createPipeline(gw, protocol);
    await runSetup(f.found, id, () =>
      plugin.setup({
        config: f.config,
        store: gw.store.namespace(`format:${id}`),
        log: gw.log.child({ format: id }),
        hooks: gw.hooks,
        gateway: gw.info,
        route: (r) => {
          gw.routes.add({
            ...r,
            handler: handlerFor(r, pipeline, gw.hooks, protocol),
            auth: r.auth ?? 'key',
            keyFrom: r.keyFrom ?? protocol.keyFrom,
            errors: protocol,
            owner: id,
          });
        },
      }),
    );
  }
}

/**
 * Finds, checks and sets up every `[extensions.<name>]`, in config order, each pushed to
 * `running` once set up (so a failure of a later one closes it).
 * @returns the key settings the enabled extensions enforce.
 * @throws ConfigError for an extension that cannot be found or a section it rejects; what a setup throws.
 */
export async function setUpExtensions(gw: SetUpHost, config: GatewayConfig, running: RunningExtension[]): Promise<Set<KeySettingName>> {
  const honored = new Set<KeySettingName>();
  for (const [name, section] of Object.entries(config.extensions)) {
    const found = await findPlugin('extension', name);
    if (!found)
      throw new ConfigError(config.file, ['extensions', name], `no built-in extension '${name}' and the npm package gw-plugin-${name} is not installed`);
    const parsed = found.plugin.configSchema.safeParse(section);
    if (!parsed.success) throw ConfigError.fromZod(config.file, ['extensions', name], parsed.error);
    const add = (method: 'GET' | 'POST' | 'DELETE') => (path: string, handler: Middleware, openapi?: Record<string, unknown>) =>
      gw.routes.add({
        method,
        path,
        auth: 'admin',
        errors: OPENAI_ERRORS,
        body: method === 'POST',
        handler: (ctx) => handler(ctx, noop),
        openapi,
        owner: `extension ${name}`,
      });
    const handle = await runSetup(found, name, () =>
      found.plugin.setup({
        name,
        config: parsed.data,
        store: gw.store.namespace(`ext:${name}`),
        hooks: gw.hooks,
        log: gw.log.child({ extension: name }),
        routes: { get: add('GET'), post: add('POST'), delete: add('DELETE') },
        gateway: gw.info,
        metrics: {
          counter: (metric, help, collect) => gw.metrics.plugin('counter', metric, help, collect),
          gauge: (metric, help, collect) => gw.metrics.plugin('gauge', metric, help, collect),
        },
        ...gw.powers,
      }),
    );
    running.push({ name, handle: handle ?? undefined });
    for (const k of found.plugin.keySettings ?? []) honored.add(k);
  }
  return honored;
}
