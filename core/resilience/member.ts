/**
 * A provider as the router sees it: its settings and live statistics (in flight, latency
 * EWMA, breaker). One Member per Provider instance, kept across routing-table rebuilds so
 * runtime changes do not reset circuit state.
 */
import { GatewayError } from '../errors.ts';
import type { Provider } from '../provider.ts';
import { Breaker } from './breaker.ts';
import { providerHealth, type ProviderHealth } from './health.ts';

/** Per-provider routing settings from its config section. */
export interface MemberSettings {
  /** Retries on the same provider (connect errors, 408, 429, 5xx). */
  maxRetries: number;
  /** Share in a `weighted` group. */
  weight: number;
}

export class Member {
  readonly provider: Provider;
  readonly settings: MemberSettings;
  readonly breaker: Breaker;
  /** Requests in flight (for `least_busy`). */
  inflight = 0;
  /** EWMA of time to first byte, ms; 0 = no sample yet (for `latency`). */
  ewmaMs = 0;
  /** Smooth weighted round-robin state. */
  current = 0;
  /** Failed calls the upstream caused, by its status or the transport failure code (for /metrics). */
  readonly failures = new Map<string, number>();
  /** Retries made on this provider (for /metrics). */
  retries = 0;
  /** Attempts and failures over the last hour (core/resilience/health.ts). */
  readonly health: ProviderHealth;

  constructor(provider: Provider, settings: MemberSettings, breaker: Breaker) {
    this.provider = provider;
    this.settings = settings;
    this.breaker = breaker;
    this.health = providerHealth(provider);
  }

  /** Records a successful call and its time-to-first-byte sample (α = 0.2). */
  sample(ms: number): void {
    this.ewmaMs = this.ewmaMs === 0 ? ms : this.ewmaMs * 0.8 + ms * 0.2;
    this.health.attempt();
  }

  /** Counts a failed call when the upstream caused it: its HTTP status, else `upstream_*` (timeout, unreachable…). */
  failed(err: unknown): void {
    this.health.attempt(err);
    if (!(err instanceof GatewayError)) return;
    const label = err.upstreamStatus !== undefined ? String(err.upstreamStatus) : err.code?.startsWith('upstream_') ? err.code : undefined;
    if (label !== undefined) this.failures.set(label, (this.failures.get(label) ?? 0) + 1);
  }
}

const settingsOf = new WeakMap<Provider, MemberSettings>();
const members = new WeakMap<Provider, Member>();

/** Records a provider's routing settings (done by the core when it builds a provider). */
export function setMemberSettings(p: Provider, s: MemberSettings): void {
  settingsOf.set(p, s);
}

/** The Member of a provider, created on first use with the given breaker settings. */
export function memberOf(p: Provider, breakerFailures: number, breakerCooldownMs: number): Member {
  let m = members.get(p);
  if (!m) {
    m = new Member(p, settingsOf.get(p) ?? { maxRetries: 2, weight: 1 }, new Breaker(breakerFailures, breakerCooldownMs));
    members.set(p, m);
  }
  return m;
}

/** Live routing state of a provider, for listings: circuit state, requests in flight, TTFB EWMA (ms). */
export function healthOf(p: Provider): { circuit: BreakerStateName; inflight: number; latency_ms: number | null } {
  const m = members.get(p);
  if (!m) return { circuit: 'closed', inflight: 0, latency_ms: null };
  return { circuit: m.breaker.state, inflight: m.inflight, latency_ms: m.ewmaMs ? Math.round(m.ewmaMs * 10) / 10 : null };
}

/** A provider's upstream failure and retry counts, undefined before its first call. */
export function upstreamCountsOf(p: Provider): Pick<Member, 'failures' | 'retries'> | undefined {
  return members.get(p);
}

type BreakerStateName = Member['breaker']['state'];
