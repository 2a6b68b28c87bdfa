/**
 * The plugin contract. A plugin module's default export is a ProviderPlugin or an
 * ExtensionPlugin; built-in ones live in plugins/, third-party ones are npm packages
 * `gw-plugin-<name>` with exactly the same powers.
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { GatewayConfig } from '../config/schema.ts';
import type { Hooks } from '../hooks.ts';
import type { Provider } from '../provider.ts';
import type { Store } from '../store/types.ts';

/** What the gateway tells plugins about itself; read-only views, current after reloads. */
export interface GatewayInfo {
  /** The loaded config file (pricing, keys' names, aliases…). */
  readonly config: () => GatewayConfig;
  /** Canonical model id for a name or alias (the name itself when no alias). */
  resolveModel(model: string): string;
  /** Every model id currently routable. */
  models(): string[];
  /** Every gateway key name (file and runtime). */
  keyNames(): string[];
  /**
   * A key's tags (`tags` of a virtual key), for grouping usage by tag; undefined when it has
   * none. Optional: absent until keys carry tags (the virtual-keys issue), so no key has any.
   */
  keyTags?(name: string): Readonly<Record<string, string>> | undefined;
}

/** Admin-only routes an extension mounts (admin token checked by the core; errors in OpenAI shape). */
export interface AdminRoutes {
  get(path: string, handler: Middleware): void;
  post(path: string, handler: Middleware): void;
  delete(path: string, handler: Middleware): void;
}

interface PluginBase<C> {
  /** Plugin name: the provider kind or the extension's `[extensions.<name>]`. */
  readonly name: string;
  /** Validates the plugin's config section; its issues are reported with the section's key path. */
  readonly configSchema: z.ZodType<C>;
}

/** Context handed to a provider plugin's setup, once per configured provider. */
export interface ProviderSetup<C> {
  /** The provider's name (its section name). */
  name: string;
  config: C;
  /** Namespaced for this provider: `provider:<name>:`. */
  store: Store;
  log: Logger;
}

export interface ProviderPlugin<C = unknown> extends PluginBase<C> {
  readonly type: 'provider';
  setup(ctx: ProviderSetup<C>): Provider | Promise<Provider>;
}

/** Context handed to an extension plugin's setup, once at startup. */
export interface ExtensionSetup<C> {
  name: string;
  config: C;
  /** Namespaced for this extension: `ext:<name>:`. */
  store: Store;
  hooks: Hooks;
  log: Logger;
  routes: AdminRoutes;
  gateway: GatewayInfo;
}

/** Optional handle an extension's setup returns, for shutdown. */
export interface ExtensionHandle {
  close?(): Promise<void>;
}

export interface ExtensionPlugin<C = unknown> extends PluginBase<C> {
  readonly type: 'extension';
  setup(ctx: ExtensionSetup<C>): void | ExtensionHandle | Promise<void | ExtensionHandle>;
}

export type Plugin = ProviderPlugin<any> | ExtensionPlugin<any>;

/** Type helpers so plugin authors get their config type inferred from the schema. */
export function defineProvider<S extends z.ZodType>(p: Omit<ProviderPlugin<z.output<S>>, 'configSchema' | 'type'> & { configSchema: S }): ProviderPlugin<z.output<S>> {
  return { ...p, type: 'provider' } as ProviderPlugin<z.output<S>>;
}
export function defineExtension<S extends z.ZodType>(p: Omit<ExtensionPlugin<z.output<S>>, 'configSchema' | 'type'> & { configSchema: S }): ExtensionPlugin<z.output<S>> {
  return { ...p, type: 'extension' } as ExtensionPlugin<z.output<S>>;
}
