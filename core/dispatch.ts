/**
 * Calling a model's provider group: the round-robin pick first, then the others in order
 * when one fails before any byte reached the client (connect error, timeout, 5xx).
 * Client errors (4xx) and aborts end the attempt at once.
 */
import { GatewayError } from './errors.ts';
import type { Provider } from './provider.ts';
import type { Group } from './routing.ts';

/** Result of a dispatch: the value and the provider that produced it. */
export interface Dispatched<T> {
  value: T;
  provider: Provider;
  attempts: number;
}

/** True for failures another provider might not have. */
function failsOver(err: unknown): boolean {
  return err instanceof GatewayError && (err.status === 502 || err.status === 503 || err.status === 504 || err.status === 429);
}

/**
 * Runs `call` against the group's providers until one succeeds.
 * @throws the last provider's error when all failed.
 */
export async function dispatch<T>(group: Group, signal: AbortSignal, call: (p: Provider) => Promise<T>): Promise<Dispatched<T>> {
  const list = group.providers;
  const n = list.length;
  const start = group.start();
  let lastErr: unknown;
  for (let i = 0; i < n; i++) {
    const provider = list[(start + i) % n]!;
    try {
      return { value: await call(provider), provider, attempts: i + 1 };
    } catch (err) {
      if (signal.aborted || !failsOver(err) || i === n - 1) throw err;
      lastErr = err;
    }
  }
  throw lastErr;
}
