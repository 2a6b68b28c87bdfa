/**
 * The upstream attempt running now, for code deep inside provider calls that the kernel does
 * not see: the headers the kernel adds to every upstream HTTP request of the attempt (a
 * tracer's child `traceparent`) and which gateway request the attempt serves (an exchange
 * observer files what it sees under that request: lib/http/exchange.ts). The upstream client
 * (client.ts) adds the headers to each request it sends from there, native passthroughs,
 * embeddings and token counting included. An AsyncLocalStorage, entered only while a tracing
 * hook is tapped (core/pipeline/observe-attempt.ts), so an untraced gateway pays nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** One upstream attempt, as the code running inside it may read it. */
export interface AttemptScope {
  /** The gateway request (`x-request-id`) the attempt serves. */
  readonly requestId: string;
  /** The canonical model the attempt asks for (a fallback's on a fallback). */
  readonly model: string;
  /** 0 for a provider's first try of the model, then its retries. */
  readonly retry: number;
  /** Headers added to every upstream request of the attempt, if any. */
  readonly headers: Readonly<Record<string, string>> | undefined;
}

const store = new AsyncLocalStorage<AttemptScope>();

/** Runs `fn` (one upstream attempt) inside `scope`. */
export function withAttempt<T>(scope: AttemptScope, fn: () => T): T {
  return store.run(scope, fn);
}

/** Runs `fn` (one upstream attempt) with `headers` added to every upstream request it sends. */
export function withAttemptHeaders<T>(headers: Readonly<Record<string, string>>, fn: () => T): T {
  return store.run({ requestId: '', model: '', retry: 0, headers }, fn);
}

/** The attempt running now, if one is scoped. */
export function currentAttempt(): AttemptScope | undefined {
  return store.getStore();
}

/** The headers of the attempt running now, if it has any. */
export function attemptHeaders(): Readonly<Record<string, string>> | undefined {
  return store.getStore()?.headers;
}
