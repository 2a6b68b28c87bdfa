/**
 * A provider as the router sees it: routing settings and live statistics. Kept in the
 * gateway's MemberPool across snapshots (circuit state survives), reconfigured by each.
 */
import type { GatewayError } from '../../core/errors.ts';
import type { OutputCap } from '../output-caps.ts';
import type { Provider } from '../provider.ts';
import { Breaker, type BreakerSettings } from './breaker.ts';
import { ProviderHealth } from './health.ts';

/** Per-provider routing settings (`max_retries`, `weight` of its section). */
export interface MemberSettings {
  /** Retries on the same provider (connect errors, 408, 429, 5xx). */
  maxRetries: number;
  /** Share in a `weighted` group. */
  weight: number;
  /** Its models' output-token caps (`max_output_tokens`); undefined: none. */
  outputCap?: OutputCap;
}

export const DEFAULT_MEMBER_SETTINGS: MemberSettings = Object.freeze({ maxRetries: 2, weight: 1 });

export class Member {
  readonly provider: Provider;
  settings: MemberSettings;
  readonly breaker: Breaker;
  /** Requests in flight (for `least_busy`). */
  inflight = 0;
  /** EWMA of time to first byte, ms; 0 = no sample yet (for `latency`). */
  ewmaMs = 0;
  /** Smooth weighted round-robin state. */
  current = 0;
  /** Failed calls the upstream caused, by its status or the upstream failure code (for /metrics). */
  readonly failures = new Map<string, number>();
  /** Retries made on this provider (for /metrics). */
  retries = 0;
  /** Attempts and failures over the last hour (health.ts), for the provider listing and /ui. */
  readonly health = new ProviderHealth();

  constructor(provider: Provider, settings: MemberSettings, breaker: BreakerSettings) {
    this.provider = provider;
    this.settings = settings;
    this.breaker = new Breaker(breaker);
  }

  /** Records a successful call and its time-to-first-byte sample (α = 0.2). */
  sample(ms: number): void {
    this.ewmaMs = this.ewmaMs === 0 ? ms : this.ewmaMs * 0.8 + ms * 0.2;
    this.health.attempt();
  }

  /** Counts a failed call the upstream caused (its status, or the catalog's upstream failure). */
  failed(err: unknown): void {
    this.health.attempt(err);
    const e = err as GatewayError | undefined;
    const label = e?.upstreamStatus !== undefined ? String(e.upstreamStatus) : e?.def?.upstream ? e.def.code : undefined;
    if (label !== undefined) this.failures.set(label, (this.failures.get(label) ?? 0) + 1);
  }
}

/** One gateway's Members by Provider instance, kept while any snapshot routes to it. */
export class MemberPool {
  private readonly members = new Map<Provider, Member>();

  /** The Member of `p`, created or reconfigured with the given settings. */
  configure(p: Provider, settings: MemberSettings, breaker: BreakerSettings): Member {
    let m = this.members.get(p);
    if (!m) this.members.set(p, (m = new Member(p, settings, breaker)));
    else {
      m.settings = settings;
      m.breaker.configure(breaker);
    }
    return m;
  }

  /** The Member of `p`, if it was ever routed to. */
  get(p: Provider): Member | undefined {
    return this.members.get(p);
  }

  /** Forgets providers no snapshot routes to any more (after they were retired). */
  drop(p: Provider): void {
    this.members.delete(p);
  }
}

/** Live routing state of a provider, for listings: circuit state, requests in flight, TTFB EWMA (ms). */
export function healthOf(m: Member | undefined): { circuit: Breaker['state']; inflight: number; latency_ms: number | null } {
  if (!m) return { circuit: 'closed', inflight: 0, latency_ms: null };
  return { circuit: m.breaker.state, inflight: m.inflight, latency_ms: m.ewmaMs ? Math.round(m.ewmaMs * 10) / 10 : null };
}
