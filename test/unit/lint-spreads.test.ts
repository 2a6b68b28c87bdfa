/**
 * The lint rule lint/no-unbounded-spread.grit (a Biome GritQL plugin, run by `biome check`,
 * so by `npm test` and `npm run lint`) finds what issue 23 found by hand: an array spread into
 * call arguments (`push(...x)`, `Math.max(...x)`, `fn(...arr)`: a RangeError past ~120,000
 * elements), and a copy of a growing array inside a loop (`a = a.concat(b)`, `a = [...a, b]`).
 * Planted in a file of its own, each is reported; core/, plugins/, protocols/, cli/ and sdk/
 * have none.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIOME = join(ROOT, 'node_modules/.bin/biome');
const RULE = join(ROOT, 'lint/no-unbounded-spread.grit');

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string; start: { line: number } };
}

/** Biome's JSON report of `paths` under the config in `configDir` (it exits non-zero on errors: the report is still on stdout). */
async function lint(configDir: string, paths: string[]): Promise<Diagnostic[]> {
  const out = await promisify(execFile)(BIOME, ['lint', '--reporter=json', `--config-path=${configDir}`, ...paths], { cwd: ROOT, maxBuffer: 1 << 24 }).catch(
    (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
  );
  return (JSON.parse(out.stdout) as { diagnostics: Diagnostic[] }).diagnostics;
}

const PLANTED = `export function f(out: number[], items: number[], more: number[][], PAIR: readonly [number, number]): number {
  out.push(...items);
  let all: number[] = [];
  for (const x of items) all = all.concat([x]);
  for (const x of items) all = [...all, x];
  more.forEach((m) => {
    all = all.concat(m);
  });
  new Set(...more);
  Math.max(...PAIR);
  const copy = [...items, 1];
  // biome-ignore lint/plugin/no-unbounded-spread: two elements
  out.push(...PAIR, ...copy.slice(0, 2));
  return Math.min(...items) + copy.length;
}
`;

test('planted spreads and in-loop copies are each reported, on their line; a constant tuple, an array literal and a justified one are not', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-lint-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'biome.json'),
    JSON.stringify({ plugins: [RULE], linter: { enabled: true, rules: { recommended: false } }, formatter: { enabled: false }, assist: { enabled: false } }),
  );
  const file = join(dir, 'planted.ts');
  await writeFile(file, PLANTED);
  const found = (await lint(dir, [file])).filter((d) => d.category === 'plugin');
  t.deepEqual(
    found.map((d) => d.location.start.line),
    [2, 4, 5, 7, 9, 14],
  );
  t.regex(found[0]!.message, /overflows the stack/);
  t.regex(found[1]!.message, /quadratic/);
});

test('core, plugins, protocols, cli and sdk have no unbounded spread (the bounded ones say why)', async (t) => {
  const found = (await lint(ROOT, ['core', 'lib', 'plugins', 'protocols', 'cli', 'sdk'])).filter((d) => d.category === 'plugin');
  t.deepEqual(
    found.map((d) => `${d.location.path}:${d.location.start.line}`),
    [],
  );
});
