/**
 * What the host gives plugins besides the hooks (server/gateway-info.ts, server/set-up.ts):
 * a read-only view of the gateway (models, keys, prices, providers' health), admin routes and
 * metric families. Authors import these types from `gw/plugin`.
 */
import type { Middleware } from 'koa';
import type { KeyInfo } from './keys.ts';
import type { BreakerState } from './resilience/breaker.ts';
import type { HealthReport } from './resilience/health.ts';

/**
 * What the gateway tells plugins about itself: narrow, read-only views, current after
 * reloads. Never secrets: no admin token, no key, no provider api_key.
 */
export interface GatewayInfo {
  /**
   * The most a request for `model` (canonical) may cost before it runs, USD: `promptTokens`
   * at the highest input-side rate and `outputTokens` at the output rate (lib/pricing/cost.ts
   * `maxCostOf`), at the dearest provider serving it; null when none of them has a price.
   * `asked`: the name the client sent, whose `[pricing]` applies when nothing prices `model`
   * (an alias priced under its own name). A request's actual cost is `rc.cost`, set by the
   * core before onResponse/onError.
   */
  maxCost(model: string, promptTokens: number, outputTokens: number, asked?: string): number | null;
  /**
   * The most output tokens one choice of a request for `model` (canonical) is sent with: the
   * largest `max_output_tokens` cap among the providers serving it (lib/output-caps.ts);
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
  /** This instance's traffic to it over the last 5 and 60 minutes (lib/resilience/health.ts). */
  health(): HealthReport;
}

/**
 * Admin-only routes an extension mounts (admin token checked by the core; errors in OpenAI
 * shape). `openapi`: the operation's OpenAPI fragment (summary, parameters, responses) for
 * /openapi.json; a default naming the route is used without it.
 */
export interface AdminRoutes {
  get(path: string, handler: Middleware, openapi?: Record<string, unknown>): void;
  post(path: string, handler: Middleware, openapi?: Record<string, unknown>): void;
  delete(path: string, handler: Middleware, openapi?: Record<string, unknown>): void;
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

/**
 * Gateway keys whose settings may have changed (the onKeysChange hook): called by the host
 * once every extension is set up (every key, `startup`), then whenever a snapshot swap
 * changes keys' settings (an admin change, a reload, another instance's change seen on a
 * shared store: each instance for its own swap).
 */
export interface KeysChange {
  /** Names added, removed or whose settings differ from the previous snapshot's, sorted (a new secret alone is no change). */
  readonly names: readonly string[];
  /** True for the call after startup, when every key is new to the plugins. */
  readonly startup: boolean;
}

/**
 * A fact one plugin tells the others outside any request (onNotice): `fact` is a `Symbol.for`
 * slot and `value` has the shape sdk/facts.ts gives it (e.g. BUDGET_STATUS).
 */
export interface Notice {
  readonly fact: symbol;
  readonly value: unknown;
}
