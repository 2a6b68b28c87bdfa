/** What the host gives plugins besides the hooks: a read-only view of the gateway, admin routes, metric families. */
import type { Middleware } from 'koa';
import type { KeyInfo } from './keys.ts';
import type { BreakerState } from './resilience/breaker.ts';
import type { HealthReport } from './resilience/health.ts';

/** What the gateway tells plugins about itself, current after reloads; never a secret. */
export interface GatewayInfo {
  /**
   * The most a request for canonical `model` may cost, USD, at its dearest provider (`maxCostOf`);
   * null when none has a price. `asked`: the client's name, priced when `model` is not.
   */
  maxCost(model: string, promptTokens: number, outputTokens: number, asked?: string): number | null;
  /** The largest `max_output_tokens` cap among `model`'s providers; undefined when one has none. */
  outputCap(model: string): number | undefined;
  /** Whether `model` (canonical) has a price at some provider serving it. */
  priced(model: string): boolean;
  /** Canonical model id for a name or alias (the name itself when no alias). */
  resolveModel(model: string): string;
  /** Every model id currently routable. */
  models(): string[];
  /** Every gateway key name (file and runtime). */
  keyNames(): string[];
  /** A key's settings by name, as `rc.key` carries them (never the secret); undefined for no such key. */
  key(name: string): KeyInfo | undefined;
  /** A key's tags (`tags` of a virtual key), for grouping usage and spend; undefined when it has none. */
  keyTags(name: string): Readonly<Record<string, string>> | undefined;
  /** The providers routed to now, as this instance sees them (breaker, `health()`): read on a timer, never per request. */
  providers(): ProviderStatus[];
  /** The gateway's clock, epoch ms: extensions that keep calendar periods read time here (tests inject it). */
  now(): number;
  /** The gw version (package.json), e.g. "0.2.0". */
  readonly version: string;
  /** `max_body_bytes`: a plugin that expands a request from its own state keeps it within this. */
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

/** Admin-only routes an extension mounts (admin token checked, OpenAI error shape); `openapi`: the operation's fragment. */
export interface AdminRoutes {
  get(path: string, handler: Middleware, openapi?: Record<string, unknown>): void;
  post(path: string, handler: Middleware, openapi?: Record<string, unknown>): void;
  delete(path: string, handler: Middleware, openapi?: Record<string, unknown>): void;
}

/** Metric families an extension adds to `GET /metrics`, read from `collect` when scraped. */
export interface ExtensionMetrics {
  /** A counter (`gw_…_total`): its value, or one sample per label set. @throws Error for a name not `gw_…` or taken. */
  counter(name: string, help: string, collect: () => number | ReadonlyArray<{ labels: Readonly<Record<string, string>>; value: number }>): void;
  /** A gauge (a value that goes up and down), as `counter`. */
  gauge(name: string, help: string, collect: () => number | ReadonlyArray<{ labels: Readonly<Record<string, string>>; value: number }>): void;
}

/** Keys whose settings may have changed (onKeysChange): every key once at startup, then each swap's. */
export interface KeysChange {
  /** Names added, removed or whose settings differ from the previous snapshot's, sorted (a new secret alone is no change). */
  readonly names: readonly string[];
  /** True for the call after startup, when every key is new to the plugins. */
  readonly startup: boolean;
}

/** A fact one plugin tells the others outside a request (onNotice): a `Symbol.for` slot of sdk/facts.ts and its value. */
export interface Notice {
  readonly fact: symbol;
  readonly value: unknown;
}
