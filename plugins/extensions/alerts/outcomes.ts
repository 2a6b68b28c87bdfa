/**
 * Each alert's outcome at each webhook, a ring per webhook in the store (shared on Redis); no
 * outcome yet is `pending` while a delivery may be under way, else `unknown`.
 */
import { rfc3339, type Store } from 'gw/plugin';
import type { Webhook } from './config.ts';
import type { DeliveryEnd } from './deliver.ts';
import type { AlertEvent } from './event.ts';

/** One delivery's outcome as kept and listed. */
export interface DeliveryOutcome {
  /** The alert's id (a test alert's for `POST /v1/alerts/test`). */
  alert: string;
  /** `delivered`, `failed` (given up after its attempts), `dropped` (the queue was full). */
  outcome: DeliveryEnd['outcome'];
  /** The receiver's status to the last attempt; 0 when none answered. */
  status: number;
  /** Why the last attempt failed, when it did. */
  error?: string;
  attempts: number;
  /** RFC 3339 (UTC), when it ended. */
  time: string;
  /** The instance that delivered it (host:pid). */
  instance: string;
}

/** An alert's delivery to one webhook, as `GET /v1/alerts` lists it under the alert; status, attempts and time once it ended. */
export interface AlertDelivery {
  webhook: string;
  outcome: DeliveryOutcome['outcome'] | 'pending' | 'unknown';
  status?: number;
  error?: string;
  attempts?: number;
  time?: string;
}

/** Time a delivery may wait in the queue before its first attempt, beyond its attempts and backoff, ms. */
const QUEUE_WAIT_MS = 60_000;

const ringOf = (webhook: string) => `delivery:${webhook}`;

/** The outcomes kept per webhook, in the store. */
export class Outcomes {
  private readonly store: Store;
  private readonly keep: number;

  /** Keeps the last `keep` outcomes per webhook (the section's `recent`). */
  constructor(store: Store, keep: number) {
    this.store = store;
    this.keep = keep;
  }

  /** Records how a delivery by `instance` ended at `now` (epoch ms, the gateway's clock, as alerts are timed). */
  async record(end: DeliveryEnd, instance: string, now: number): Promise<void> {
    const o: DeliveryOutcome = { alert: end.alert, outcome: end.outcome, status: end.status, attempts: end.attempts, time: rfc3339(now), instance };
    if (end.error !== undefined) o.error = end.error;
    await this.store.ringPush(ringOf(end.webhook), JSON.stringify(o), this.keep);
  }

  /** The last `limit` outcomes at `webhook`, newest first. */
  async last(webhook: string, limit: number): Promise<DeliveryOutcome[]> {
    const out: DeliveryOutcome[] = [];
    for await (const [, v] of this.store.ringRead(ringOf(webhook), { limit })) out.push(JSON.parse(v) as DeliveryOutcome);
    return out;
  }
}

/** The longest a delivery to `w` can take, ms: every attempt timing out, the most backoff, a queue wait. */
export function deliveryHorizonMs(w: Webhook): number {
  let backoff = 0;
  for (let k = 1; k < w.max_attempts; k++) backoff += w.retry_base_ms * 2 ** (k - 1) * 1.2;
  return w.max_attempts * w.timeout_ms + backoff + QUEUE_WAIT_MS;
}

/** Each alert's delivery to each webhook: its outcome, else pending or unknown by its age at `now`. */
export function deliveriesOf(
  alerts: readonly AlertEvent[],
  webhooks: readonly Webhook[],
  outcomes: ReadonlyArray<readonly DeliveryOutcome[]>,
  now: number,
): AlertDelivery[][] {
  const byAlert = outcomes.map((list) => {
    const m = new Map<string, DeliveryOutcome>();
    for (const o of list) if (!m.has(o.alert)) m.set(o.alert, o);
    return m;
  });
  return alerts.map((a) =>
    webhooks.map((w, i): AlertDelivery => {
      const o = byAlert[i]!.get(a.id);
      if (o === undefined) return { webhook: w.name, outcome: now - Date.parse(a.time) < deliveryHorizonMs(w) ? 'pending' : 'unknown' };
      const d: AlertDelivery = { webhook: w.name, outcome: o.outcome, status: o.status, attempts: o.attempts, time: o.time };
      if (o.error !== undefined) d.error = o.error;
      return d;
    }),
  );
}
