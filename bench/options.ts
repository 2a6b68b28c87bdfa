/**
 * Bench knobs from the environment and the HTTP target of a scenario request.
 */
import type { Target } from './load.ts';
import type { BenchRequest } from './scenarios.ts';
import { BENCH_KEY } from './setup.ts';

/** A positive number from the environment, else `def`. */
export function envNumber(name: string, def: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got '${raw}'`);
  return n;
}

/** The HTTP target of a bench request against `base`. */
export function toTarget(base: string, r: BenchRequest, withKey: boolean): Target {
  let body = r.body;
  if (r.unique) {
    const messages = (body.messages as Array<{ role: string; content: string }>).map((m, i, all) =>
      i === all.length - 1 ? { ...m, content: `${m.content} [<id>]` } : m,
    );
    body = { ...body, messages };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (withKey) headers.authorization = `Bearer ${BENCH_KEY}`;
  return { url: base + r.path, headers, body: JSON.stringify(body), idReplacement: r.unique };
}
