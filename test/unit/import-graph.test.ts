/**
 * The module graph has no import cycles (type-only imports included): each folder can be
 * read, tested and changed from the bottom up. Core never imports a plugin at runtime.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIRS = ['core', 'plugins', 'cli', 'sdk'];
const IMPORT = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+'(\.[^']+)'/gm;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** file → the files it imports (relative imports only), with whether the import is type-only. */
function graph(): Map<string, Array<{ to: string; typeOnly: boolean }>> {
  const g = new Map<string, Array<{ to: string; typeOnly: boolean }>>();
  for (const d of DIRS) {
    for (const f of files(join(ROOT, d))) {
      const edges: Array<{ to: string; typeOnly: boolean }> = [];
      for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) edges.push({ to: resolve(dirname(f), m[3]!), typeOnly: m[2] !== undefined });
      g.set(f, edges);
    }
  }
  return g;
}

function cycles(g: Map<string, Array<{ to: string }>>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string): void => {
    state.set(n, 'visiting');
    stack.push(n);
    for (const { to } of g.get(n) ?? []) {
      if (state.get(to) === 'visiting')
        found.push(
          stack
            .slice(stack.indexOf(to))
            .concat(to)
            .map((p) => relative(ROOT, p)),
        );
      else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of g.keys()) if (!state.has(n)) visit(n);
  return found;
}

test('no import cycles in core, plugins, cli and sdk (type-only imports included)', (t) => {
  const found = cycles(graph());
  t.deepEqual(found, [], found.map((c) => c.join(' → ')).join('\n'));
});

test('the core imports no plugin at runtime (type-only imports of plugin types are allowed nowhere either)', (t) => {
  const bad: string[] = [];
  for (const [from, edges] of graph()) {
    if (!relative(ROOT, from).startsWith('core/')) continue;
    for (const e of edges) if (relative(ROOT, e.to).startsWith('plugins/')) bad.push(`${relative(ROOT, from)} → ${relative(ROOT, e.to)}`);
  }
  t.deepEqual(bad, []);
});

/** Every module specifier of a file: static imports and re-exports, and dynamic import() of a literal. */
const SPECIFIER = /^\s*(?:import|export)\s+(?:type\s+)?[^'"]*?from\s+'([^']+)'|\bimport\('([^']+)'\)/gm;

test('store plugins import gw only through gw/plugin: no core, sdk or other plugin file, only their own folder, npm packages and node builtins', (t) => {
  const bad: string[] = [];
  const stores = join(ROOT, 'plugins', 'stores');
  for (const name of readdirSync(stores)) {
    const home = join(stores, name) + sep;
    for (const f of files(home)) {
      for (const m of readFileSync(f, 'utf8').matchAll(SPECIFIER)) {
        const spec = (m[1] ?? m[2])!;
        const ok = spec.startsWith('.') ? resolve(dirname(f), spec).startsWith(home) : spec === 'gw/plugin' || !/^gw(\/|$)/.test(spec);
        if (!ok) bad.push(`${relative(ROOT, f)} → ${spec}`);
      }
    }
  }
  t.deepEqual(bad, []);
});
