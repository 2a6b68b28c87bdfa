/**
 * The plugin contract: a plugin module's default export is a ProviderPlugin, an ExtensionPlugin,
 * a StorePlugin or a FormatPlugin, built-in (plugins/) or an npm `gw-plugin-<name>` alike.
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Hooks } from '../hooks.ts';
import type { KeySettingName } from '../../lib/key-settings.ts';
import type { ClientSettings, UpstreamClient } from '../../lib/http/client.ts';
import type { Provider } from '../../lib/provider.ts';
import type { Protocol } from '../protocol.ts';
import type { FormatRoute } from '../pipeline/route.ts';
import type { Store } from '../../lib/store/types.ts';
import type { AdminRoutes, ExtensionMetrics, GatewayInfo } from '../../lib/gateway-info.ts';
import type { StorePlugin } from '../../lib/store/plugin.ts';
import type { ExtensionPowers, ProviderPowers } from '../../lib/plugin-powers.ts';

/** Routing settings the core reads from a provider's section, when its plugin accepts them. */
export type RoutingSetting = 'max_retries' | 'weight';

interface PluginBase<C> {
  /** Plugin name: the provider kind or the extension's `[extensions.<name>]`. */
  readonly name: string;
  /** Validates the plugin's config section; its issues are reported with the section's key path. */
  readonly configSchema: z.ZodType<C>;
  /** The gw versions it works with, a semver range (`^0.2.0`) checked at load; absent: any. */
  readonly gw?: string;
}

/** Context handed to a provider plugin's setup, once per configured provider (powers: lib/plugin-powers.ts). */
export interface ProviderSetup<C> extends ProviderPowers {
  /** The provider's name (its section name). */
  name: string;
  config: C;
  /** Namespaced for this provider: `provider:<name>:`. */
  store: Store;
  log: Logger;
  /** This provider's upstream client on the gateway's pool, with its timeout and error-body reader. */
  http(opts: Pick<ClientSettings, 'timeoutMs' | 'readError'>): UpstreamClient;
}

export interface ProviderPlugin<C = unknown> extends PluginBase<C> {
  readonly type: 'provider';
  /** The routing settings it accepts (`max_retries`, `weight`): read by the host, never by `configSchema`. */
  readonly routing?: readonly RoutingSetting[];
  setup(ctx: ProviderSetup<C>): Provider | Promise<Provider>;
}

/** Context handed to an extension plugin's setup, once at startup (powers: lib/plugin-powers.ts). */
export interface ExtensionSetup<C> extends ExtensionPowers {
  name: string;
  config: C;
  /** Namespaced for this extension: `ext:<name>:`. */
  store: Store;
  hooks: Hooks;
  log: Logger;
  routes: AdminRoutes;
  gateway: GatewayInfo;
  /** Families it adds to `/metrics`. */
  metrics: ExtensionMetrics;
}

/** Optional handle an extension's setup returns, for shutdown. */
export interface ExtensionHandle {
  close?(): Promise<void>;
}

export interface ExtensionPlugin<C = unknown> extends PluginBase<C> {
  readonly type: 'extension';
  /** The key settings it enforces (`budget`…): a key setting no enabled extension declares gets a warning. */
  readonly keySettings?: readonly KeySettingName[];
  // biome-ignore lint/suspicious/noConfusingVoidType: an extension's setup() that returns nothing is the common case
  setup(ctx: ExtensionSetup<C>): void | ExtensionHandle | Promise<void | ExtensionHandle>;
}

/** Context handed to a client format's setup, once at startup. */
export interface FormatSetup<C> {
  /** Its `[<section>]` of the config file, parsed by `configSchema` (`{}` without one). */
  config: C;
  /** Namespaced for this format: `format:<id>:`. */
  store: Store;
  log: Logger;
  hooks: Hooks;
  gateway: GatewayInfo;
  /** Registers a route (errors in this format's shape). */
  route(r: FormatRoute): void;
}

/**
 * A client-facing format (openai-chat, anthropic-messages, openai-responses, gemini, a third
 * party's): the protocol it speaks (its id, key headers, error shape, generate pieces, content
 * reader) and the routes it serves with it. Built-ins are always on; a third-party one, the npm
 * package `gw-plugin-<id>`, is enabled by a `[formats.<id>]` section holding its settings.
 */
export interface FormatPlugin<C = unknown> {
  readonly type: 'format';
  /** Its wire protocol: `protocol.id` is the format's id (`[formats.<id>]`, `gw-plugin-<id>`, `Provider.native`'s key). */
  readonly protocol: Protocol;
  /** Built-in formats only: the top-level config section it reads (e.g. `responses`). A third-party format's settings are its `[formats.<id>]`. */
  readonly section?: string;
  /** Validates the format's settings; without it the format takes none (its section must be empty). */
  readonly configSchema?: z.ZodType<C>;
  /** The gw versions this format works with, a semver range, checked at load (as PluginBase's `gw`). */
  readonly gw?: string;
  setup(ctx: FormatSetup<C>): void | Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: a plugin of any config type; its own schema types it where it is defined
export type Plugin = ProviderPlugin<any> | ExtensionPlugin<any> | StorePlugin<any> | FormatPlugin<any>;

/** Type helpers so plugin authors get their config type inferred from the schema. */
export function defineProvider<S extends z.ZodType>(
  p: Omit<ProviderPlugin<z.output<S>>, 'configSchema' | 'type'> & { configSchema: S },
): ProviderPlugin<z.output<S>> {
  return { ...p, type: 'provider' } as ProviderPlugin<z.output<S>>;
}
export function defineExtension<S extends z.ZodType>(
  p: Omit<ExtensionPlugin<z.output<S>>, 'configSchema' | 'type'> & { configSchema: S },
): ExtensionPlugin<z.output<S>> {
  return { ...p, type: 'extension' } as ExtensionPlugin<z.output<S>>;
}
/** Declares a client format; its config type is inferred from `configSchema` (undefined without one). */
export function defineFormat<C = undefined>(p: Omit<FormatPlugin<C>, 'type'>): FormatPlugin<C> {
  return { ...p, type: 'format' };
}
