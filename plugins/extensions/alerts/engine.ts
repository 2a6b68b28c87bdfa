/** Firing an alert: claimed once across instances, recorded in the store's ring, logged, one delivery per webhook; never on a request's path. */
import { hostname } from 'node:os';
import type { GatewayInfo, Store } from 'gw/plugin';
import type { Logger } from 'pino';
import { Claims } from './claim.ts';
import type { AlertsConfig } from './config.ts';
import { Deliveries, type DeliveryEnd } from './deliver.ts';
import { type AlertEvent, type AlertRule, alertEvent } from './event.ts';
import { Outcomes } from './outcomes.ts';

/** The store ring holding recent alerts, newest first. */
export const RECENT_KEY = 'recent';

/** What an alert says; the engine adds its id, time and instance. */
export type AlertParts = Pick<AlertEvent, 'rule' | 'severity' | 'title' | 'subject' | 'details'>;

export class AlertEngine {
  readonly claims: Claims;
  readonly deliveries: Deliveries;
  /** How each delivery ended, per webhook (in the store). */
  readonly outcomes: Outcomes;
  /** Alerts fired by this instance, by rule (for /metrics). */
  readonly fired = new Map<AlertRule, number>();
  readonly instance = `${hostname()}:${process.pid}`;

  readonly config: AlertsConfig;
  readonly gateway: GatewayInfo;
  readonly log: Logger;
  private readonly store: Store;

  constructor(config: AlertsConfig, store: Store, gateway: GatewayInfo, log: Logger) {
    this.config = config;
    this.store = store;
    this.gateway = gateway;
    this.log = log;
    this.claims = new Claims(store);
    this.outcomes = new Outcomes(store, config.recent);
    this.deliveries = new Deliveries(config.queue_size, config.concurrency, log, (end) => this.recordOutcome(end));
  }

  /** Keeps how a delivery ended (a store failure is logged, never thrown: the delivery itself is done). */
  recordOutcome(end: DeliveryEnd): Promise<void> {
    return this.outcomes
      .record(end, this.instance, this.gateway.now())
      .catch((err: Error) => this.log.warn({ err: err.message, webhook: end.webhook, alert: end.alert }, 'alerts: could not record a delivery outcome'));
  }

  /** The cooldown of a rule (its own, else the section's), ms. */
  cooldownMs(rule: { cooldown_minutes?: number }): number {
    return (rule.cooldown_minutes ?? this.config.cooldown_minutes) * 60_000;
  }

  /** Fires alert `dedupe` unless an instance did in the last `ttlMs`; true when this call fired it. Rejects when the store fails. */
  async fire(dedupe: string, ttlMs: number, parts: AlertParts): Promise<boolean> {
    if (!(await this.claims.claim(dedupe, ttlMs))) return false;
    const event = alertEvent(dedupe, this.gateway.now(), this.instance, parts);
    this.fired.set(parts.rule, (this.fired.get(parts.rule) ?? 0) + 1);
    this.log.warn({ alert: event.id, rule: event.rule, severity: event.severity }, `alert: ${event.title}`);
    for (const w of this.config.webhooks) this.deliveries.send(w, event);
    await this.store.ringPush(RECENT_KEY, JSON.stringify(event), this.config.recent);
    return true;
  }

  /** `fire` started from a path that must not wait: a store failure is logged, never thrown. */
  fireSoon(dedupe: string, ttlMs: number, parts: AlertParts): void {
    this.fire(dedupe, ttlMs, parts).catch((err: Error) => this.log.warn({ err: err.message, alert: dedupe }, 'alerts: could not record an alert'));
  }

  /** Recent alerts, newest first. */
  async recent(limit: number): Promise<AlertEvent[]> {
    const out: AlertEvent[] = [];
    for await (const [, v] of this.store.ringRead(RECENT_KEY, { limit })) out.push(JSON.parse(v) as AlertEvent);
    return out;
  }
}
