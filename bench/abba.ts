/**
 * ABBA order for an off/on comparison: each cycle measures off, on, on, off, so a machine
 * that drifts (other load, thermal limits) hits both settings alike.
 */
import type { Gw } from './setup.ts';

/**
 * Runs `measure` for `cycles` ABBA cycles over the two processes and returns each setting's
 * results in run order (and calls `each` after every run, for per-run reports).
 */
export async function abba<R>(
  off: Gw,
  on: Gw,
  cycles: number,
  measure: (g: Gw) => Promise<R>,
  each?: (setting: 'off' | 'on', r: R) => void,
): Promise<{ off: R[]; on: R[] }> {
  const out = { off: [] as R[], on: [] as R[] };
  const order = [
    ['off', off],
    ['on', on],
  ] as const;
  for (let i = 0; i < cycles; i++)
    for (const [k, g] of [...order, ...order.toReversed()]) {
      const r = await measure(g);
      out[k].push(r);
      each?.(k, r);
    }
  return out;
}
