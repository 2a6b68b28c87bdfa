/**
 * Headers the kernel adds to every upstream HTTP request of one attempt (a tracer's child
 * `traceparent`), without any provider passing them: the attempt runs inside
 * `withAttemptHeaders`, and the upstream client (client.ts) adds what `attemptHeaders()`
 * holds to each request it sends from there, native passthroughs, embeddings and token
 * counting included. An AsyncLocalStorage, because an attempt's calls are made deep inside
 * provider code that the kernel does not see; set only while an attempt has such headers,
 * so an untraced gateway pays nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const store = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/** Runs `fn` (one upstream attempt) with `headers` added to every upstream request it sends. */
export function withAttemptHeaders<T>(headers: Readonly<Record<string, string>>, fn: () => T): T {
  return store.run(headers, fn);
}

/** The headers of the attempt running now, if it has any. */
export function attemptHeaders(): Readonly<Record<string, string>> | undefined {
  return store.getStore();
}
