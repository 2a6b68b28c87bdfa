/**
 * The upstream attempt running now, for code deep in provider calls: the headers every upstream
 * request of it gets (a child `traceparent`) and the request it serves. An AsyncLocalStorage
 * entered only while a tracing hook is tapped.
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
/** True once any attempt was scoped: until then (no tracing hook tapped) a lookup has nothing to find and is skipped. */
let scoped = false;

/** Runs `fn` (one upstream attempt) inside `scope`. */
export function withAttempt<T>(scope: AttemptScope, fn: () => T): T {
  scoped = true;
  return store.run(scope, fn);
}

/** Runs `fn` (one upstream attempt) with `headers` added to every upstream request it sends. */
export function withAttemptHeaders<T>(headers: Readonly<Record<string, string>>, fn: () => T): T {
  scoped = true;
  return store.run({ requestId: '', model: '', retry: 0, headers }, fn);
}

/** The attempt running now, if one is scoped. */
export function currentAttempt(): AttemptScope | undefined {
  return scoped ? store.getStore() : undefined;
}

/** The headers of the attempt running now, if it has any. */
export function attemptHeaders(): Readonly<Record<string, string>> | undefined {
  return scoped ? store.getStore()?.headers : undefined;
}
