/**
 * The rules checked on a timer, off every request's path: circuits, error rates, p95 latency,
 * keys nearing expiry. Each alerts on crossing into the bad state (and `resolved` on leaving it).
 */
import { rfc3339 } from 'gw/plugin';
import type { AlertEngine } from './engine.ts';
import type { Rule } from './config.ts';
import type { MinuteCounts } from './minute-counts.ts';

type RuleOf<T extends Rule['type']> = Extract<Rule, { type: T }>;

/** `*` matches any run of characters; everything else is literal. */
export function globMatcher(pattern: string): (name: string) => boolean {
  if (pattern === '*') return () => true;
  const re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
  return (name) => re.test(name);
}

/** Something checked each tick; `now` is the gateway's clock (key expiry, budget periods), epoch ms. */
export interface Check {
  run(now: number): void;
}

/** A provider's circuit opening (critical) and closing again (resolved). */
export class CircuitCheck implements Check {
  /** Last state seen per provider, half-open counted as open (it is not serving yet). */
  private readonly open = new Map<string, boolean>();
  private readonly matches: (name: string) => boolean;
  private readonly engine: AlertEngine;
  private readonly rule: RuleOf<'circuit'>;

  constructor(engine: AlertEngine, rule: RuleOf<'circuit'>) {
    this.engine = engine;
    this.rule = rule;
    this.matches = globMatcher(rule.providers);
  }

  run(): void {
    for (const p of this.engine.gateway.providers()) {
      if (!this.matches(p.name)) continue;
      const open = p.circuit !== 'closed';
      const was = this.open.get(p.name) ?? false;
      if (open === was) continue;
      this.open.set(p.name, open);
      this.engine.fireSoon(`circuit:${p.name}:${open ? 'open' : 'closed'}`, this.engine.cooldownMs(this.rule), {
        rule: 'circuit',
        severity: open ? 'critical' : 'resolved',
        title: open ? `provider '${p.name}' circuit opened: it is skipped until a probe succeeds` : `provider '${p.name}' circuit closed: it serves again`,
        subject: { provider: p.name },
        details: { circuit: p.circuit, kind: p.kind },
      });
    }
  }
}

/** A threshold rule over subjects (models, providers): alerts and resolves on edges, not levels. */
abstract class ThresholdCheck<R extends Rule & { match: string }> implements Check {
  private readonly above = new Set<string>();
  protected readonly matches: (name: string) => boolean;
  protected readonly engine: AlertEngine;
  protected readonly rule: R;
  /** The rule's place in `rules`: two rules on one subject keep apart. */
  protected readonly index: number;

  constructor(engine: AlertEngine, rule: R, index: number) {
    this.engine = engine;
    this.rule = rule;
    this.index = index;
    this.matches = globMatcher(rule.match);
  }

  abstract run(): void;

  /** True when `subject` just went above; false when it just went back below; undefined when nothing changed. */
  protected edge(subject: string, isAbove: boolean): boolean | undefined {
    if (isAbove === this.above.has(subject)) return undefined;
    if (isAbove) this.above.add(subject);
    else this.above.delete(subject);
    return isAbove;
  }
}

/** A model's or provider's share of failed requests over the last N minutes. */
export class ErrorRateCheck extends ThresholdCheck<RuleOf<'error_rate'>> {
  private readonly counts: MinuteCounts;

  constructor(engine: AlertEngine, rule: RuleOf<'error_rate'>, index: number, counts: MinuteCounts) {
    super(engine, rule, index);
    this.counts = counts;
  }

  run(): void {
    const r = this.rule;
    // the minute counters run on real time, as onFinish records them (the gateway clock may be a test's)
    const now = Date.now();
    for (const target of this.counts.targets()) {
      if (!this.matches(target)) continue;
      const w = this.counts.window(target, r.window_minutes, now);
      const failed = w.server + (r.include_4xx ? w.client : 0);
      const pct = w.requests ? (failed / w.requests) * 100 : 0;
      // below the minimum count the rate says nothing: keep the state as it was
      const edge = w.requests < r.min_requests ? undefined : this.edge(target, pct >= r.threshold_percent);
      if (edge === undefined) continue;
      this.engine.fireSoon(`error_rate:${this.index}:${r.scope}:${target}:${edge ? 'above' : 'below'}`, this.engine.cooldownMs(r), {
        rule: 'error_rate',
        severity: edge ? 'critical' : 'resolved',
        title: edge
          ? `${r.scope} '${target}' error rate ${pct.toFixed(1)}% over the last ${r.window_minutes} min (threshold ${r.threshold_percent}%)`
          : `${r.scope} '${target}' error rate back to ${pct.toFixed(1)}% (threshold ${r.threshold_percent}%)`,
        subject: { [r.scope]: target },
        details: {
          error_rate_percent: Math.round(pct * 10) / 10,
          threshold_percent: r.threshold_percent,
          requests: w.requests,
          failed,
          window_minutes: r.window_minutes,
        },
      });
    }
  }
}

/** A provider's p95 latency (arrival to last byte of the requests it answered, last 5 minutes, this instance). */
export class LatencyCheck extends ThresholdCheck<RuleOf<'latency_p95'>> {
  run(): void {
    const r = this.rule;
    for (const p of this.engine.gateway.providers()) {
      if (!this.matches(p.name)) continue;
      const h = p.health().last_5m;
      if (h.served < r.min_requests || !h.latency_ms) continue;
      const p95 = h.latency_ms.p95;
      const edge = this.edge(p.name, p95 >= r.threshold_ms);
      if (edge === undefined) continue;
      this.engine.fireSoon(`latency_p95:${this.index}:${p.name}:${edge ? 'above' : 'below'}`, this.engine.cooldownMs(r), {
        rule: 'latency_p95',
        severity: edge ? 'warning' : 'resolved',
        title: edge
          ? `provider '${p.name}' p95 latency ${Math.round(p95)} ms over the last 5 min (threshold ${r.threshold_ms} ms)`
          : `provider '${p.name}' p95 latency back to ${Math.round(p95)} ms (threshold ${r.threshold_ms} ms)`,
        subject: { provider: p.name },
        details: { p95_ms: Math.round(p95), p50_ms: Math.round(h.latency_ms.p50), threshold_ms: r.threshold_ms, requests: h.served, window_minutes: 5 },
      });
    }
  }
}

/** A key whose `expires_at` is less than `before_hours` away: once per key and expiry time. */
export class ExpiryCheck implements Check {
  private readonly engine: AlertEngine;
  private readonly rule: RuleOf<'key_expiry'>;

  constructor(engine: AlertEngine, rule: RuleOf<'key_expiry'>) {
    this.engine = engine;
    this.rule = rule;
  }

  run(now: number): void {
    const before = this.rule.before_hours * 3_600_000;
    const g = this.engine.gateway;
    for (const name of g.keyNames()) {
      const at = g.key(name)?.expiresAt;
      if (at === undefined || at <= now || at - now > before) continue;
      const dedupe = `key_expiry:${name}:${at}`;
      if (!this.engine.claims.open(dedupe)) continue;
      const hours = (at - now) / 3_600_000;
      this.engine.fireSoon(dedupe, at - now + 86_400_000, {
        rule: 'key_expiry',
        severity: 'warning',
        title: `key '${name}' expires in ${hours < 48 ? `${Math.max(1, Math.round(hours))} h` : `${Math.round(hours / 24)} days`}`,
        subject: { key: name },
        details: { expires_at: rfc3339(at), hours_left: Math.round(hours * 10) / 10 },
      });
    }
  }
}
