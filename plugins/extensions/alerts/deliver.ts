/**
 * Webhook deliveries off the request path: a bounded FIFO, `concurrency` POSTs at once, each
 * timed out, retried with backoff on a network error, timeout, 408, 429 or 5xx. Logged by the
 * webhook's name, never its URL (a Slack URL is a secret); an answer read up to
 * ANSWER_READ_MAX_BYTES. Each outcome goes to `onOutcome`; closing aborts and drops.
 */
import type { Logger } from 'pino';
import { request } from 'undici';
import type { Webhook } from './config.ts';
import { type AlertEvent, jsonBody, slackBody } from './event.ts';

/** What a delivery reads of a webhook's answer at most, bytes; the rest is never read. */
export const ANSWER_READ_MAX_BYTES = 64 * 1024;

interface Delivery {
  webhook: Webhook;
  event: AlertEvent;
  body: string;
  /** Attempts made so far. */
  attempts: number;
}

/** Outcome of one attempt: the receiver's status (0 = no answer) and whether to try again. */
export interface AttemptResult {
  ok: boolean;
  status: number;
  error?: string;
  retry: boolean;
}

/** How one delivery ended: taken by the webhook, given up on after its attempts, or dropped (the queue was full). */
export interface DeliveryEnd {
  webhook: string;
  /** The alert's id. */
  alert: string;
  outcome: 'delivered' | 'failed' | 'dropped';
  /** The receiver's status to the last attempt; 0 when none answered (or none was made). */
  status: number;
  /** Why the last attempt failed, when it did (`HTTP 503`, `no answer within 5000 ms`, `ECONNREFUSED`). */
  error?: string;
  attempts: number;
}

/** Counts by outcome, for /metrics. */
export interface DeliveryCounts {
  delivered: number;
  failed: number;
  retried: number;
  dropped: number;
}

export class Deliveries {
  /** Ring buffer of waiting deliveries (a FIFO with no shifting). */
  private readonly ring: Array<Delivery | undefined>;
  private head = 0;
  private size = 0;
  private inflight = 0;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly closing = new AbortController();
  readonly counts: DeliveryCounts = { delivered: 0, failed: 0, retried: 0, dropped: 0 };
  /** Resolvers waiting for the queue to drain (tests, `alerts test`). */
  private idleWaiters: Array<() => void> = [];

  private readonly concurrency: number;
  private readonly log: Logger;
  private readonly onOutcome: (end: DeliveryEnd) => void;

  /** `onOutcome` hears how each delivery ended (never for one cut short by close); it must not throw. */
  constructor(capacity: number, concurrency: number, log: Logger, onOutcome: (end: DeliveryEnd) => void = () => {}) {
    this.ring = new Array(capacity);
    this.concurrency = concurrency;
    this.log = log;
    this.onOutcome = onOutcome;
  }

  /** Queues `event` for `webhook`; false when the queue is full (the delivery is dropped and counted). */
  send(webhook: Webhook, event: AlertEvent): boolean {
    if (this.closing.signal.aborted) return false;
    if (this.size === this.ring.length) {
      this.counts.dropped++;
      this.log.warn({ webhook: webhook.name, alert: event.id }, 'alerts: delivery queue full, alert dropped for this webhook');
      this.onOutcome({ webhook: webhook.name, alert: event.id, outcome: 'dropped', status: 0, error: 'delivery queue full', attempts: 0 });
      return false;
    }
    this.ring[(this.head + this.size++) % this.ring.length] = { webhook, event, body: bodyFor(webhook, event), attempts: 0 };
    this.pump();
    return true;
  }

  /** Resolves once nothing waits, runs or is scheduled for a retry. */
  idle(): Promise<void> {
    if (this.busy() === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Aborts deliveries in flight and drops waiting ones and retries. */
  close(): void {
    this.closing.abort();
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    this.ring.fill(undefined);
    this.size = 0;
    this.settle();
  }

  private busy(): number {
    return this.size + this.inflight + this.retryTimers.size;
  }

  private pump(): void {
    while (this.inflight < this.concurrency && this.size > 0) {
      const d = this.ring[this.head]!;
      this.ring[this.head] = undefined;
      this.head = (this.head + 1) % this.ring.length;
      this.size--;
      this.inflight++;
      void this.run(d);
    }
  }

  private async run(d: Delivery): Promise<void> {
    d.attempts++;
    const t0 = performance.now();
    const r = await attempt(d.webhook, d.body, this.closing.signal);
    this.inflight--;
    const fields = {
      webhook: d.webhook.name,
      alert: d.event.id,
      rule: d.event.rule,
      attempt: d.attempts,
      status: r.status,
      ms: Math.round(performance.now() - t0),
    };
    const end = { webhook: d.webhook.name, alert: d.event.id, status: r.status, attempts: d.attempts };
    if (r.ok) {
      this.counts.delivered++;
      this.log.info(fields, 'alerts: delivered');
      this.onOutcome({ ...end, outcome: 'delivered' });
    } else if (this.closing.signal.aborted) {
      // shutting down: nothing to retry, nothing to report
    } else if (r.retry && d.attempts < d.webhook.max_attempts) {
      const wait = backoffMs(d.webhook.retry_base_ms, d.attempts);
      this.counts.retried++;
      this.log.warn({ ...fields, error: r.error, retry_in_ms: wait }, 'alerts: delivery failed, will retry');
      const timer = setTimeout(() => {
        this.retryTimers.delete(timer);
        if (this.closing.signal.aborted) return;
        this.inflight++;
        void this.run(d);
      }, wait);
      timer.unref();
      this.retryTimers.add(timer);
    } else {
      this.counts.failed++;
      this.log.error({ ...fields, error: r.error }, `alerts: delivery failed after ${d.attempts} attempt(s), giving up`);
      this.onOutcome({ ...end, outcome: 'failed', error: r.error });
    }
    this.pump();
    this.settle();
  }

  private settle(): void {
    if (this.busy() > 0 || !this.idleWaiters.length) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const r of w) r();
  }
}

/** The body a webhook gets: Slack's message shape, or the event itself (event.ts has how each is escaped). */
export function bodyFor(webhook: Webhook, event: AlertEvent): string {
  return webhook.format === 'slack' ? JSON.stringify(slackBody(event)) : jsonBody(event);
}

/** Wait before attempt `attempts + 1`: base · 2^(attempts−1), ±20% jitter so instances do not retry in step. */
export function backoffMs(baseMs: number, attempts: number): number {
  return Math.round(baseMs * 2 ** (attempts - 1) * (0.8 + Math.random() * 0.4));
}

/** One POST within the webhook's timeout; its answer read up to ANSWER_READ_MAX_BYTES, not kept; a 3xx fails, unfollowed. */
export async function attempt(webhook: Webhook, body: string, signal?: AbortSignal): Promise<AttemptResult> {
  const timeout = AbortSignal.timeout(webhook.timeout_ms);
  const stop = signal ? AbortSignal.any([timeout, signal]) : timeout;
  try {
    const res = await request(webhook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'gw-alerts', ...webhook.headers },
      body,
      signal: stop,
    });
    // past the limit undici destroys the body: the connection is closed, not read to its end
    await res.body.dump({ limit: ANSWER_READ_MAX_BYTES, signal: stop });
    const status = res.statusCode;
    if (status >= 200 && status < 300) return { ok: true, status, retry: false };
    return { ok: false, status, error: `HTTP ${status}`, retry: status === 408 || status === 429 || status >= 500 };
  } catch (err) {
    const e = err as Error;
    const what = timeout.aborted ? `no answer within ${webhook.timeout_ms} ms` : `${e.name}: ${causeOf(e)}`;
    return { ok: false, status: 0, error: what, retry: true };
  }
}

/** Why a request got no answer: the socket's or undici's code; never an error's message (it may quote a header). */
function causeOf(e: Error): string {
  const x = e as Error & { code?: string; cause?: { code?: string } };
  return x.code ?? x.cause?.code ?? 'request not sent';
}
