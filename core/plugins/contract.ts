/**
 * The plugin contract. A plugin module's default export is a ProviderPlugin, an
 * ExtensionPlugin, a StorePlugin or a FormatPlugin; built-in ones live in plugins/,
 * third-party ones are npm packages `gw-plugin-<name>` with exactly the same powers.
 * Authors import the contract from the SDK entry `gw/plugin` (sdk/plugin.ts).
 */
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { KeyInfo } from '../context.ts';
import type { Hooks } from '../hooks.ts';
import type { KeySettingName } from '../key-settings.ts';
import type { ClientSettings, UpstreamClient } from '../http/client.ts';
import type { Provider } from '../provider.ts';
import type { BreakerState } from '../resilience/breaker.ts';
import type { HealthReport } from '../resilience/health.ts';
import type { Generate } from '../pipeline/generate.ts';
import type { Pipeline } from '../pipeline/pipeline.ts';
import type { ErrorShape, KeySource, RouteMethod } from '../routes/registry.ts';
import type { Store } from '../store/types.ts';

/**
 * What the gateway tells plugins about itself: narrow, read-only views, current after
 * reloads. Never secrets: no admin token, no key, no provider api_key.
 */
export interface GatewayInfo {
  /**
   * The most a request for `model` (canonical) may cost before it runs, USD: `promptTokens`
   * at the highest input-side rate and `outputTokens` at the output rate (core/pricing/cost.ts
   * `maxCostOf`), at the dearest provider serving it; null when none of them has a price.
   * `asked`: the name the client sent, whose `[pricing]` applies when nothing prices `model`
   * (an alias priced under its own name). A request's actual cost is `rc.cost`, set by the
   * core before onResponse/onError.
   */
  maxCost(model: string, promptTokens: number, outputTokens: number, asked?: string): number | null;
  /**
   * The most output tokens one choice of a request for `model` (canonical) is sent with: the
   * largest `max_output_tokens` cap among the providers serving it (core/output-caps.ts);
   * undefined when one of them has none (then the request's own cap is what it gets).
   */
  outputCap(model: string): number | undefined;
  /** Whether `model` (canonical) has a price at some provider serving it. */
  priced(model: string): boolean;
  /** Canonical model id for a name or alias (the name itself when no alias). */
  resolveModel(model: string): string;
  /** Every model id currently routable. */
  models(): string[];
  /** Every gateway key name (file and runtime). */
  keyNames(): string[];
  /**
   * A key's virtual key settings by name (limits, budget, period, tags, model patterns:
   * the same KeyInfo a request carries as `rc.key`, never the secret or its hash);
   * undefined for a name that is no key now.
   */
  key(name: string): KeyInfo | undefined;
  /** A key's tags (`tags` of a virtual key), for grouping usage and spend; undefined when it has none. */
  keyTags(name: string): Readonly<Record<string, string>> | undefined;
  /**
   * The providers routed to now, as this instance sees them: circuit breaker state, and
   * `health()` (attempts, failures, latency and TTFB p50/p95 over the last 5 and 60 minutes)
   * built when called. Read it on a timer, never per request.
   */
  providers(): ProviderStatus[];
  /** The gateway's clock, epoch ms: extensions that keep calendar periods read time here (tests inject it). */
  now(): number;
  /** The gw version (package.json), e.g. "0.2.0". */
  readonly version: string;
  /**
   * `max_body_bytes`: the largest request body gw accepts, bytes (restart-only). A plugin that
   * expands a request from its own state (stored history) keeps the expanded body within it.
   */
  readonly maxBodyBytes: number;
}

/** One provider as GatewayInfo.providers() shows it (this instance's state; nothing shared). */
export interface ProviderStatus {
  readonly name: string;
  readonly kind: string;
  /** `closed` (healthy), `open` (skipped during the cooldown) or `half_open` (one probe allowed). */
  readonly circuit: BreakerState;
  /** This instance's traffic to it over the last 5 and 60 minutes (core/resilience/health.ts). */
  health(): HealthReport;
}

/** Admin-only routes an extension mounts (admin token checked by the core; errors in OpenAI shape). */
export interface AdminRoutes {
  get(path: string, handler: Middleware): void;
  post(path: string, handler: Middleware): void;
  delete(path: string, handler: Middleware): void;
}

/**
 * Metric families an extension adds to `GET /metrics` (Prometheus text, every worker's
 * summed into one scrape). Values are read from `collect` when scraped, so counting stays
 * a plain number on the request path.
 */
export interface ExtensionMetrics {
  /**
   * A counter (monotonic; name it `gw_…_total`): `collect` returns its value, or one sample
   * per label set.
   * @throws Error when the name does not start with `gw_` or another family has it.
   */
  counter(name: string, help: string, collect: () => number | ReadonlyArray<{ labels: Readonly<Record<string, string>>; value: number }>): void;
  /** A gauge (a value that goes up and down), as `counter`. */
  gauge(name: string, help: string, collect: () => number | ReadonlyArray<{ labels: Readonly<Record<string, string>>; value: number }>): void;
}

/** Routing settings the core reads from a provider's section, when its plugin accepts them. */
export type RoutingSetting = 'max_retries' | 'weight';

interface PluginBase<C> {
  /** Plugin name: the provider kind or the extension's `[extensions.<name>]`. */
  readonly name: string;
  /** Validates the plugin's config section; its issues are reported with the section's key path. */
  readonly configSchema: z.ZodType<C>;
  /**
   * The gw versions this plugin works with, as a semver range (`^0.2.0`, `>=0.2 <0.4`);
   * checked at load, a mismatch refuses to start naming both versions. Absent: any.
   */
  readonly gw?: string;
}

/** Context handed to a provider plugin's setup, once per configured provider. */
export interface ProviderSetup<C> {
  /** The provider's name (its section name). */
  name: string;
  config: C;
  /** Namespaced for this provider: `provider:<name>:`. */
  store: Store;
  log: Logger;
  /**
   * This provider's upstream client on the gateway's connection pool: give the timeout
   * and how to read the kind's error bodies.
   */
  http(opts: Pick<ClientSettings, 'timeoutMs' | 'readError'>): UpstreamClient;
}

export interface ProviderPlugin<C = unknown> extends PluginBase<C> {
  readonly type: 'provider';
  /**
   * Routing settings of the section the core reads for this kind (`max_retries`,
   * `weight`); they are removed from the section before `configSchema` sees it. A section
   * giving one the kind does not accept is a config error naming it.
   */
  readonly routing?: readonly RoutingSetting[];
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
  /** Families it adds to `/metrics`. */
  metrics: ExtensionMetrics;
}

/** Optional handle an extension's setup returns, for shutdown. */
export interface ExtensionHandle {
  close?(): Promise<void>;
}

export interface ExtensionPlugin<C = unknown> extends PluginBase<C> {
  readonly type: 'extension';
  /**
   * The virtual key settings this extension enforces (`requests_per_minute`, `budget`…):
   * a key giving one that no enabled extension declares gets a warning that it changes nothing.
   */
  readonly keySettings?: readonly KeySettingName[];
  // biome-ignore lint/suspicious/noConfusingVoidType: an extension's setup() that returns nothing is the common case
  setup(ctx: ExtensionSetup<C>): void | ExtensionHandle | Promise<void | ExtensionHandle>;
}

/** What every route of a client format declares. */
export interface RouteBase {
  method: RouteMethod;
  path: string;
  /** `key` (a gateway key, from `keyFrom`, default the format's) or `none`. */
  auth?: 'key' | 'none';
  keyFrom?: readonly KeySource[];
  /** A gateway request, counted in gw_requests_total under this `route` label (use the route's RequestFacts.route). */
  metered?: string;
  /** Parse a JSON body first. */
  body?: boolean;
  /** Serve only when this answers true (a variant of another route on the same method and path). */
  when?: (ctx: Context) => boolean;
  /** OpenAPI path item fragment for this operation (summary, requestBody, responses…). */
  openapi?: Record<string, unknown>;
}

/** A route served by a handler of the format's own (model lists, stored state, counting…). */
export interface HandlerRoute extends RouteBase {
  handler(ctx: Context): unknown;
  generate?: undefined;
}

/** A generate route: the kernel runs the generate loop (core/pipeline/generate.ts) with the format's pieces. */
export interface GenerateRoute extends RouteBase {
  // biome-ignore lint/suspicious/noExplicitAny: a declaration of any state, translation facts and event types; its own module types it
  generate: Generate<any, any, any>;
  handler?: undefined;
}

/** A route a client format serves (see core/routes/registry.ts). */
export type FormatRoute = HandlerRoute | GenerateRoute;

/** Context handed to a client format's setup, once at startup. */
export interface FormatSetup<C> {
  /** Its `[<section>]` of the config file, parsed by `configSchema`. */
  config: C;
  /** Namespaced for this format: `format:<id>:`. */
  store: Store;
  log: Logger;
  hooks: Hooks;
  gateway: GatewayInfo;
  /** The request pipeline: admit, dispatch, finish, stream. */
  pipeline: Pipeline;
  /** Registers a route (errors in this format's shape). */
  route(r: FormatRoute): void;
}

/**
 * A client-facing format (openai-chat, anthropic-messages, openai-responses, gemini, a
 * third party's): its routes, its error shape, and its translations to and from the common
 * format. Providers that speak it natively offer `native[id]`. The built-in formats are
 * always on; a third-party one, the npm package `gw-plugin-<id>`, is enabled by a
 * `[formats.<id>]` section holding its settings.
 */
export interface FormatPlugin<C = unknown> extends ErrorShape {
  readonly type: 'format';
  /** Format id: `[formats.<id>]` and the package `gw-plugin-<id>`, the key of Provider.native, onChunk's `chunk.format`. */
  readonly id: string;
  /** Where a gateway key may come from on its routes. */
  readonly keyFrom: readonly KeySource[];
  /** Built-in formats only: the top-level config section it reads (e.g. `responses`). A third-party format's settings are its `[formats.<id>]`. */
  readonly section?: string;
  /** Validates the format's settings; without it the format takes none (its section must be empty). */
  readonly configSchema?: z.ZodType<C>;
  /** The gw versions this format works with, a semver range, checked at load (as PluginBase's `gw`). */
  readonly gw?: string;
  setup(ctx: FormatSetup<C>): void | Promise<void>;
}

/** Context handed to a store plugin's `open`, once per process at startup. */
export interface StoreSetup<C> {
  /**
   * `[store] url` as written (`redis://:password@host:6379/0`); undefined when the config
   * gives none (the default store). It may carry a password: never log it or put it in an
   * error as it is (`redactUrl` masks the password).
   */
  url: string | undefined;
  /** `[store]` without `url`, parsed by `configSchema` ({} when the plugin has none). */
  config: C;
  /** `data_dir`, absolute: where a store that keeps local files keeps them. */
  dataDir: string;
  log: Logger;
}

/**
 * A store backend. The scheme of `[store] url` names it (`postgres://…` → the plugin
 * `postgres`: plugins/stores/postgres/, else the npm package gw-plugin-postgres; a TLS
 * scheme `<name>s` is served by `<name>` when no plugin has the longer name); without a
 * url the store is the embedded `level` under `data_dir`. `open` returns the process's one
 * Store, which the core namespaces for every plugin and closes at shutdown. A backend keeps
 * every rule documented on `Store` (core/store/types.ts; test/unit/store-conformance.ts
 * checks them), so plugins never learn which one they have.
 */
export interface StorePlugin<C = unknown> extends Omit<PluginBase<C>, 'configSchema'> {
  readonly type: 'store';
  /** Validates `[store]` minus `url`; absent: the section may hold nothing but `url`. */
  readonly configSchema?: z.ZodType<C>;
  /**
   * Several gw processes may open the same store at once and behave as one gateway
   * (limits, budgets, runtime providers and keys shared): `gw serve --workers N` (N > 1)
   * needs it, and each instance then polls the store for the others' runtime changes.
   */
  readonly shared: boolean;
  /**
   * Opens (connects to, creates) the store. A store that cannot be opened throws a
   * UserError naming `[store]` (and the url without its password), which stops gw with
   * that one line.
   */
  open(ctx: StoreSetup<C>): Store | Promise<Store>;
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
/** Declares a store backend; without `configSchema` its config is `{}` (the section holds `url` only). */
export function defineStore<S extends z.ZodType = z.ZodType<Record<string, never>>>(
  p: Omit<StorePlugin<z.output<S>>, 'configSchema' | 'type'> & { configSchema?: S },
): StorePlugin<z.output<S>> {
  return { ...p, type: 'store' } as StorePlugin<z.output<S>>;
}
/** Declares a client format; its config type is inferred from `configSchema` (undefined without one). */
export function defineFormat<C = undefined>(p: Omit<FormatPlugin<C>, 'type'>): FormatPlugin<C> {
  return { ...p, type: 'format' };
}
