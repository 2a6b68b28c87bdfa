/**
 * Calling upstreams for one request before its first byte: for the model, then each of its
 * fallbacks, each provider of its group in strategy order (the conversation's member first),
 * retried per lib/resilience/retry.ts. docs/design.md "Routing, retries, fallbacks".
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { NO_PROVIDER } from './error-codes.ts';
import { CIRCUIT_OPEN } from '../lib/resilience/breaker.ts';
import { GatewayError } from './errors.ts';
import type { Provider } from '../lib/provider.ts';
import type { Member } from '../lib/resilience/member.ts';
import { backoffMs, classify } from '../lib/resilience/retry.ts';
import type { Group } from '../lib/resilience/strategy.ts';
import type { RoutingTable } from './routing.ts';

/** Result of a dispatch: the value, the provider and model that produced it, attempts made. */
export interface Dispatched<T> {
  value: T;
  provider: Provider;
  /** Canonical model that answered (differs from the request's on a fallback). */
  model: string;
  /** Upstream calls made, retries included. */
  attempts: number;
}

/** The request being dispatched: its canonical model, the group already resolved for it, and its fallbacks. */
export interface DispatchPlan {
  model: string;
  group: Group;
  fallbacks: string[];
  /** The conversation's affinity key (lib/resilience/affinity.ts), when its group keeps affinity and the format read a source. */
  affinity?: string;
}

/** The model's group (404 when none) and its fallbacks, those `allows` (the key's patterns) lets through. */
export function plan(table: RoutingTable, requested: string, canonical: string, allows?: (model: string) => boolean): DispatchPlan {
  const group = table.group(requested, canonical, allows);
  let fallbacks = table.fallbacks.size ? table.fallbacksFor(requested, canonical) : [];
  if (allows !== undefined && fallbacks.length) fallbacks = fallbacks.filter(allows);
  return { model: canonical, group, fallbacks };
}

/**
 * Runs `call` until an attempt succeeds (`retry`: 0, then the count); `pinned` goes first for the requested model.
 * @throws the last or first non-retryable failure; 503 `circuit_open` when every circuit was open.
 */
export async function dispatch<T>(
  table: RoutingTable,
  p: DispatchPlan,
  signal: AbortSignal,
  call: (provider: Provider, model: string, retry: number) => Promise<T>,
  pinned?: Member,
): Promise<Dispatched<T>> {
  let attempts = 0;
  let lastErr: unknown;
  for (let i = -1; i < p.fallbacks.length; i++) {
    const model = i < 0 ? p.model : p.fallbacks[i]!;
    const group = i < 0 ? p.group : table.find(model);
    if (!group) continue;
    for (const m of i < 0 && pinned !== undefined ? group.orderFrom(pinned) : group.order()) {
      if (!m.breaker.allow(Date.now())) {
        lastErr ??= CIRCUIT_OPEN({ provider: m.provider.name, seconds: m.breaker.retryInSeconds(Date.now()) }, { provider: m.provider.name });
        continue;
      }
      for (let retry = 0; ; retry++) {
        attempts++;
        if (retry > 0) m.retries++;
        m.inflight++;
        const t0 = performance.now();
        try {
          const value = await call(m.provider, model, retry);
          m.inflight--;
          m.breaker.success();
          m.sample(performance.now() - t0);
          return { value, provider: m.provider, model, attempts };
        } catch (err) {
          m.inflight--;
          if (signal.aborted) {
            m.breaker.release();
            throw err;
          }
          m.failed(err);
          const verdict = classify(err);
          if (verdict === 'fail') {
            // the upstream answered (a 4xx): it is healthy, the request is not
            if (err instanceof GatewayError && err.upstreamStatus !== undefined) m.breaker.success();
            else m.breaker.release();
            throw err;
          }
          m.breaker.failure(Date.now());
          lastErr = err;
          if (verdict !== 'retry' || retry >= m.settings.maxRetries || m.breaker.state === 'open') break;
          await sleep(backoffMs(retry + 1, err), undefined, { signal }).catch(() => undefined);
          // the client left during the backoff: that (499), not the upstream's failure, ends the request
          if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : err;
        }
      }
    }
  }
  throw lastErr ?? NO_PROVIDER();
}
