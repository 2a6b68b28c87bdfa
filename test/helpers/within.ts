/**
 * Polling for something another process makes true (an instance sees a change another one
 * made): every 25 ms, bounded, so a test waits as little as the product does.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExecutionContext } from 'ava';

/** Polls `check` until it holds; returns the ms it took, or fails the test past `limitMs` (then returns the ms waited). */
export async function within(t: ExecutionContext, what: string, limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (await check()) return Date.now() - t0;
    if (Date.now() - t0 > limitMs) {
      t.fail(`${what}: not seen within ${limitMs} ms`);
      return Date.now() - t0;
    }
    await sleep(25);
  }
}
