/** The part of autocannon's API the bench uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Stop after this many requests instead of a duration. */
    amount?: number;
    /** ms between internal samples; also how late a duration run notices it is over. */
    sampleInt?: number;
    timeout?: number;
    /** Replace `[<id>]` in the body with a fresh id per request. */
    idReplacement?: boolean;
  }

  interface Result {
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    duration: number;
    requests: { total: number; average: number };
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(opts: Options): Instance;
  export default autocannon;
}
