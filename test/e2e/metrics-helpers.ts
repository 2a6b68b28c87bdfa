/**
 * Reading Prometheus text exposition in tests: `/metrics` fetched with the admin token,
 * then samples looked up by name and labels.
 */
import { ADMIN_TOKEN } from '../helpers/gateway.ts';

/** One sample line: `name{a="x",b="y"} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text format's sample lines (comments skipped). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/**
 * Sum of the samples named `name` whose labels include `labels` (0 when none: a counter
 * never incremented has no line).
 */
export function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const s of samples) {
    if (s.name !== name) continue;
    if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) sum += s.value;
  }
  return sum;
}

/** GET /metrics with the admin token, parsed. */
export async function scrape(url: string, token = ADMIN_TOKEN): Promise<Sample[]> {
  const r = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}: ${await r.text()}`);
  return parseMetrics(await r.text());
}
