/** Loading and setting up the client formats and the extensions through the one loader (core/plugins/load.ts). */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Hooks } from '../core/hooks.ts';
import type { PipelineHost } from '../core/pipeline/host.ts';
import { createPipeline } from '../core/pipeline/pipeline.ts';
import { handlerFor } from '../core/pipeline/route.ts';
import type { ExtensionHandle, FormatPlugin } from '../core/plugins/contract.ts';
import { loadPlugin, setUp } from '../core/plugins/load.ts';
import { builtinModule, builtinNames, findPlugin, type LoadedPlugin } from '../core/plugins/loader.ts';
import { ConfigError } from '../lib/config/error.ts';
import { canonicalKeySource, type KeySource, keyHeaders } from '../lib/http/key-sources.ts';
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

/** A client format a config enables: where it was found and its settings parsed (its id, key sources and error body: `found.plugin.protocol`). */
export interface EnabledFormat {
  found: LoadedPlugin<FormatPlugin>;
  config: unknown;
}

/** What of the config the formats read: `[formats]` and the built-ins' top-level sections. */
export type FormatsConfig = Pick<GatewayConfig, 'file' | 'formats'> & Record<string, unknown>;

/**
 * The enabled formats: the built-ins (settings: the top-level section each names), then one per `[formats.<name>]`.
 * @throws ConfigError for a built-in format given a `[formats]` section; what loadPlugin throws.
 */
export async function loadFormats(config: FormatsConfig, file: string = config.file): Promise<EnabledFormat[]> {
  const formats: EnabledFormat[] = [];
  const load = async (name: string, path: string[], settings: unknown) => {
    const { found, config: parsed } = await loadPlugin({ type: 'format', name, file, path, settings });
    formats.push({ found, config: parsed });
  };
  for (const id of builtinNames('format')) {
    const section = (await findPlugin('format', id))?.plugin.section;
    await load(id, section ? [section] : [], section ? config[section] : {});
  }
  for (const [name, section] of Object.entries(config.formats ?? {})) {
    if (builtinModule('formats', name))
      throw new ConfigError(file, ['formats', name], `'${name}' is a built-in client format, always on: it takes no [formats] section`);
    await load(name, ['formats', name], section);
  }
  return formats;
}

/** The headers every enabled format reads a gateway key from: what the gateway's log censors. */
export function keyHeadersOf(formats: readonly EnabledFormat[]): string[] {
  return [...new Set(formats.flatMap((f) => keyHeaders(f.found.plugin.protocol.keyFrom)))];
}

/**
 * Sets up the enabled formats from `source`; a route's own `keyFrom` must be declared by some format (so the log censors it).
 * @throws what a format's setup throws.
 */
export async function setUpFormats(gw: SetUpHost, formats: readonly EnabledFormat[], source: 'builtin' | 'npm'): Promise<void> {
  const declaredSources = new Set<KeySource>(formats.flatMap((f) => f.found.plugin.protocol.keyFrom.map(canonicalKeySource)));
  for (const format of formats) {
    if (format.found.source !== source) continue;
    const protocol = format.found.plugin.protocol;
    const { id, keyFrom } = protocol;
    const pipeline = createPipeline(gw, protocol);
    await setUp(format.found, id, () =>
      format.found.plugin.setup({
        config: format.config,
        store: gw.store.namespace(`format:${id}`),
        log: gw.log.child({ format: id }),
        hooks: gw.hooks,
        gateway: gw.info,
        route: (spec) => {
          const undeclared = spec.keyFrom?.find((k) => !declaredSources.has(canonicalKeySource(k)));
          if (undeclared !== undefined)
            throw new Error(`route ${spec.method} ${spec.path} reads a key from '${undeclared}', which no enabled format declares in keyFrom`);
          gw.routes.add({
            ...spec,
            handler: handlerFor(spec, pipeline, gw.hooks, protocol),
            auth: spec.auth ?? 'key',
            keyFrom: spec.keyFrom ?? keyFrom,
            errors: protocol,
            owner: id,
          });
        },
      }),
    );
  }
}

/**
 * Loads and sets up every `[extensions.<name>]` in order, each pushed to `running`; the key settings they enforce.
 * @throws what loadPlugin or a setup throws.
 */
export async function setUpExtensions(gw: SetUpHost, config: GatewayConfig, running: RunningExtension[]): Promise<Set<KeySettingName>> {
  const honored = new Set<KeySettingName>();
  for (const [name, section] of Object.entries(config.extensions)) {
    const { found, config: settings } = await loadPlugin({ type: 'extension', name, file: config.file, path: ['extensions', name], settings: section });
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
    const handle = await setUp(found, name, () =>
      found.plugin.setup({
        name,
        config: settings,
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
