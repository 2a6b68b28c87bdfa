/**
 * How outcomes leave the extension: the error a block answers with (400 `guardrail_blocked`
 * in the client's own error shape: the kernel renders a GatewayError per format), the
 * `x-gw-guardrails` header, and the `gw_guardrail_hits_total{check,phase,action}` counter.
 * Each names checks and entity types only, never matched text.
 */
import { defineError } from 'gw/plugin';
import type { Action, Phase } from './checks.ts';
import type { Blocked, Outcome } from './engine.ts';

/** A check blocked the request or the answer: names the check, the phase and the entity type found. */
export const GUARDRAIL_BLOCKED = defineError<Blocked & { phase: Phase }>(
  'guardrail_blocked',
  400,
  (p) =>
    p.entity === 'webhook_unavailable'
      ? `blocked by guardrail '${p.check}': its checker did not clear the ${p.phase}`
      : `blocked by guardrail '${p.check}': ${p.entity} found in the ${p.phase}`,
  { verbatim: ['check', 'entity', 'phase'] },
);

/** The `x-gw-guardrails` value: each check with an outcome, once, in the order first seen; undefined when none. */
export function guardrailsHeader(outcomes: readonly Outcome[]): string | undefined {
  if (outcomes.length === 0) return undefined;
  const names: string[] = [];
  for (const outcome of outcomes) if (!names.includes(outcome.check)) names.push(outcome.check);
  return names.join(', ');
}

/** Hits per (check, phase, action) since start, as `/metrics` samples; the label set is bounded by the config (checks × 2 × 3). */
export class HitCounter {
  private readonly counts = new Map<string, { labels: { check: string; phase: Phase; action: Action }; value: number }>();

  /** Adds one request's or stream's outcomes (each counts its matches). */
  add(outcomes: readonly Outcome[]): void {
    for (const outcome of outcomes) {
      const id = `${outcome.check}\u0000${outcome.phase}\u0000${outcome.action}`;
      const sample = this.counts.get(id);
      if (sample !== undefined) sample.value += outcome.count;
      else this.counts.set(id, { labels: { check: outcome.check, phase: outcome.phase, action: outcome.action }, value: outcome.count });
    }
  }

  /** Every sample, for `metrics.counter('gw_guardrail_hits_total', …)`. */
  samples(): ReadonlyArray<{ labels: Readonly<Record<string, string>>; value: number }> {
    return [...this.counts.values()];
  }
}
