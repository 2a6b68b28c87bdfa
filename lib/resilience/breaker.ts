/**
 * A per-provider circuit breaker: `failures` consecutive failures open it; while open the
 * provider is skipped for `cooldownMs`; then it is half-open and admits exactly one probe,
 * whose success closes it and whose failure opens it again.
 */
import { defineError } from '../../core/errors.ts';
export type BreakerState = 'closed' | 'open' | 'half_open';

/** `[routing]` breaker settings. */
export interface BreakerSettings {
  /** Consecutive failures that open the circuit. */
  failures: number;
  /** How long an open circuit skips the provider, ms. */
  cooldownMs: number;
}

export class Breaker {
  private consecutive = 0;
  private openedAt = 0;
  private probing = false;
  state: BreakerState = 'closed';
  failures: number;
  cooldownMs: number;

  constructor(s: BreakerSettings) {
    this.failures = s.failures;
    this.cooldownMs = s.cooldownMs;
  }

  /** Applies new settings (a reload); the state and the failure count so far are kept. */
  configure(s: BreakerSettings): void {
    this.failures = s.failures;
    this.cooldownMs = s.cooldownMs;
  }

  /** May a request go to this provider now? Claims the half-open probe when it answers true in that state. */
  allow(now: number): boolean {
    if (this.state === 'closed') return true;
    if (this.state === 'open') {
      if (now - this.openedAt < this.cooldownMs) return false;
      this.state = 'half_open';
      this.probing = false;
    }
    if (this.probing) return false;
    this.probing = true;
    return true;
  }

  success(): void {
    this.consecutive = 0;
    this.probing = false;
    this.state = 'closed';
  }

  /** Gives back a half-open probe whose call ended without telling anything about the upstream (client gone, refused before the call). */
  release(): void {
    this.probing = false;
  }

  failure(now: number): void {
    this.probing = false;
    if (this.state === 'half_open' || ++this.consecutive >= this.failures) {
      this.state = 'open';
      this.openedAt = now;
      this.consecutive = 0;
    }
  }

  /** Seconds until an open circuit admits a probe (0 when not open). */
  retryInSeconds(now: number): number {
    return this.state === 'open' ? Math.max(0, Math.ceil((this.cooldownMs - (now - this.openedAt)) / 1000)) : 0;
  }
}

/** A provider skipped while its circuit is open; the answer (503, with the time left) when no other provider was tried. */
export const CIRCUIT_OPEN = defineError<{ provider: string; seconds: number }>(
  'circuit_open',
  503,
  (p) => `provider ${p.provider} is unavailable (circuit open, retry in ${p.seconds} s)`,
);
