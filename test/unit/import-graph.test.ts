/**
 * The module graph has no import cycles (type-only imports included): each folder can be
 * read, tested and changed from the bottom up. Core never imports a plugin at runtime.
 *
 * The SDK is the only door: a file of a plugin (plugins/<group>/<name>/) imports gw only
 * through the SDK's entries (`gw/plugin`, `gw/plugin/format`, `gw/plugin/store`) and the
 * protocol kits `gw/plugin/<protocol>`, besides npm packages, node builtins and files of its
 * own folder; a protocol kit (protocols/<id>/), one of gw's own libraries, the same, with
 * files of its own kit and, for what only the kits share, of the kernel and lib/; the
 * kernel (core/) imports no kit, no plugin and not the host (server/: the process, config
 * loading, admin API, metrics, console) that runs it; nor does the SDK (sdk/), which opens
 * the kernel and the libraries only. The libraries under the kernel (lib/) import only each
 * other and the kernel's error catalog (core/errors.ts, core/error-codes.ts): they know
 * nothing of a request's path. The MCP gateway (mcp/) is a second request path beside the
 * kernel's: it imports the kernel, the libraries and the facts plugins read (sdk/facts.ts),
 * never the host, a plugin, a kit or the CLI; and only the host (server/) imports it. Static
 * imports, re-exports and dynamic `import()` of a literal
 * all count; a planted violation of each kind is reported.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIRS = ['core', 'lib', 'server', 'mcp', 'plugins', 'protocols', 'cli', 'sdk'];
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

test('no import cycles in core, lib, server, mcp, plugins, protocols, cli and sdk (type-only imports included)', (t) => {
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

/** The home a file may import from relatively: its plugin's or kit's folder (`plugins/<group>/<name>/`, `protocols/<id>/`), or undefined for other files. */
/** What a library file (lib/) may import from the kernel: the error catalog, the gateway's one vocabulary of failures. */
const ERROR_CATALOG = new Set(['core/errors.ts', 'core/error-codes.ts']);
/** The one file of the SDK the MCP gateway imports: the facts it leaves for plugins (MCP_CALL). */
const MCP_FACTS = 'sdk/facts.ts';

/** The SDK's entries (package.json `exports`) besides the kits `gw/plugin/<protocol>`. */
const ENTRIES = new Set(['gw/plugin', 'gw/plugin/format', 'gw/plugin/store']);

function homeOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] === 'plugins' && parts.length > 3) return `${parts.slice(0, 3).join('/')}/`;
  if (parts[0] === 'protocols' && parts.length > 2) return `${parts.slice(0, 2).join('/')}/`;
  return undefined;
}

/**
 * Every import that breaks the door's rules, as `file → specifier`, for `sources` (path
 * relative to the repository → its text); `kits` are the protocol ids that exist.
 */
function doorViolations(sources: ReadonlyMap<string, string>, kits: ReadonlySet<string>): string[] {
  const bad: string[] = [];
  for (const [file, text] of sources) {
    const home = homeOf(file);
    const kernel = file.startsWith('core/');
    const library = file.startsWith('lib/');
    const sdk = file.startsWith('sdk/');
    const mcp = file.startsWith('mcp/');
    const inKit = file.startsWith('protocols/');
    // only the host runs the MCP gateway
    const mayImportMcp = file.startsWith('server/') || mcp;
    const checked = home !== undefined || kernel || library || sdk || mcp;
    if (!checked && mayImportMcp) continue;
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = (m[1] ?? m[2])!;
      let ok: boolean;
      if (spec.startsWith('.')) {
        const to = relative(ROOT, resolve(ROOT, dirname(file), spec))
          .split(sep)
          .join('/');
        if (to.startsWith('mcp/') && !mayImportMcp) ok = false;
        else if (!checked) ok = true;
        else if (mcp) ok = to.startsWith('mcp/') || to.startsWith('core/') || to.startsWith('lib/') || to === MCP_FACTS;
        else if (library) ok = to.startsWith('lib/') || ERROR_CATALOG.has(to);
        else if (kernel || sdk) ok = !to.startsWith('plugins/') && !to.startsWith('protocols/') && !to.startsWith('server/');
        else if (inKit) ok = to.startsWith(home!) || to.startsWith('core/') || to.startsWith('lib/');
        else ok = to.startsWith(home!);
      } else if (spec === 'gw' || spec.startsWith('gw/')) {
        const kit = spec.startsWith('gw/plugin/') ? spec.slice('gw/plugin/'.length) : undefined;
        ok = !checked || (home !== undefined && (ENTRIES.has(spec) || (kit !== undefined && kits.has(kit) && `protocols/${kit}/` !== home)));
      } else ok = true;
      if (!ok) bad.push(`${file} → ${spec}`);
    }
  }
  return bad;
}

function repository(): Map<string, string> {
  const sources = new Map<string, string>();
  for (const d of ['core', 'lib', 'mcp', 'plugins', 'protocols', 'server', 'cli', 'sdk']) {
    for (const f of files(join(ROOT, d))) {
      const rel = relative(ROOT, f).split(sep).join('/');
      sources.set(rel, readFileSync(f, 'utf8'));
    }
  }
  return sources;
}

const KITS = new Set(readdirSync(join(ROOT, 'protocols')));

test('plugins and protocol kits import gw only through the SDK entries and the kits, a kit also the kernel and lib/; the kernel and the SDK import neither, nor the host (server/); lib/ imports only lib/ and the error catalog; mcp/ only the kernel, lib/ and sdk/facts.ts, and only the host imports it', (t) => {
  const sources = repository();
  for (const f of [
    'plugins/formats/openai-responses/route.ts',
    'protocols/anthropic-messages/generate.ts',
    'protocols/gemini/generate.ts',
    'plugins/providers/dashscope/index.ts',
    'protocols/openai-chat/vendor.ts',
    'protocols/anthropic-messages/vendor.ts',
    'protocols/gemini/native-step.ts',
    'sdk/plugin.ts',
    'sdk/format.ts',
    'sdk/store.ts',
    'mcp/call.ts',
    'server/gateway.ts',
  ])
    t.true(sources.has(f), f);
  t.deepEqual(doorViolations(sources, KITS), []);
});

test('a planted violation of each rule is reported', (t) => {
  const planted = new Map([
    ['plugins/formats/x/index.ts', "import { admit } from '../../../core/pipeline/admit.ts';\nimport { ok } from './own.ts';"],
    ['plugins/providers/y/index.ts', "export { chatFrames } from '../../formats/openai-chat/chat.ts';"],
    ['plugins/extensions/z/index.ts', "const m = await import('../../../protocols/openai-chat/schema.ts');\nimport { z } from 'zod';"],
    ['plugins/extensions/w/index.ts', "import type { Hooks } from 'gw/core/hooks.ts';\nimport { x } from 'gw/plugin/no-such-kit';"],
    ['protocols/openai-chat/bad.ts', "import { y } from '../openai-responses/types.ts';\nimport { me } from 'gw/plugin/openai-chat';"],
    [
      'protocols/openai-responses/reach.ts',
      "import { chunkOf } from '../../core/pipeline/upstream-calls.ts';\nimport { dataField } from '../../lib/http/sse-write.ts';\nimport { own } from 'gw/plugin/format';\nimport { x } from './x.ts';\nimport { modelsFor } from '../../sdk/models.ts';\nimport { chatFrames } from '../../plugins/formats/openai-chat/index.ts';\nimport type { Gateway } from '../../server/gateway.ts';\nimport { startMcp } from '../../mcp/index.ts';",
    ],
    ['core/pipeline/bad.ts', "import { chatFrames } from '../../protocols/openai-chat/chat-frames.ts';\nimport { a } from 'gw/plugin';"],
    ['core/routing-bad.ts', "import type { Gateway } from '../server/gateway.ts';\nimport { own } from '../lib/own.ts';"],
    [
      'lib/http/bad.ts',
      "import type { KeyInfo } from '../../core/context.ts';\nimport { GatewayError } from '../../core/errors.ts';\nimport { UPSTREAM_TIMEOUT } from '../../core/error-codes.ts';\nimport type { Gateway } from '../../server/gateway.ts';\nimport { x } from 'gw/plugin';\nimport { own } from '../own.ts';",
    ],
    [
      'mcp/bad.ts',
      "import { createGateway } from '../server/gateway.ts';\nimport budget from '../plugins/extensions/budget/index.ts';\nimport { x } from 'gw/plugin';\nimport type { Pipeline } from '../sdk/plugin.ts';\nimport { MCP_CALL } from '../sdk/facts.ts';\nimport { RequestContext } from '../core/context.ts';\nimport { own } from '../lib/own.ts';\nimport { Catalog } from './catalog.ts';",
    ],
    ['core/pipeline/mcp-bad.ts', "import { startMcp } from '../../mcp/index.ts';"],
    ['cli/bad.ts', "import { startMcp } from '../mcp/index.ts';"],
    ['server/fine.ts', "import { startMcp } from '../mcp/index.ts';"],
    [
      'plugins/formats/fine/index.ts',
      "import { defineFormat } from 'gw/plugin';\nimport { chatRequestSchema } from 'gw/plugin/openai-chat';\nimport { bodyOf } from 'gw/plugin/format';\nimport { x } from './x.ts';",
    ],
    ['plugins/stores/fine/index.ts', "import { defineStore } from 'gw/plugin/store';\nimport { UserError } from 'gw/plugin';"],
    [
      'sdk/bad.ts',
      "export { LEVELS } from '../server/log.ts';\nexport type { GenerateContentResponse } from '../protocols/gemini/types.ts';\nexport { x } from 'gw/plugin/format';\nexport { own } from '../lib/own.ts';",
    ],
  ]);
  t.deepEqual(doorViolations(planted, new Set(['openai-chat', 'openai-responses'])), [
    'plugins/formats/x/index.ts → ../../../core/pipeline/admit.ts',
    'plugins/providers/y/index.ts → ../../formats/openai-chat/chat.ts',
    'plugins/extensions/z/index.ts → ../../../protocols/openai-chat/schema.ts',
    'plugins/extensions/w/index.ts → gw/core/hooks.ts',
    'plugins/extensions/w/index.ts → gw/plugin/no-such-kit',
    'protocols/openai-chat/bad.ts → ../openai-responses/types.ts',
    'protocols/openai-chat/bad.ts → gw/plugin/openai-chat',
    'protocols/openai-responses/reach.ts → ../../sdk/models.ts',
    'protocols/openai-responses/reach.ts → ../../plugins/formats/openai-chat/index.ts',
    'protocols/openai-responses/reach.ts → ../../server/gateway.ts',
    'protocols/openai-responses/reach.ts → ../../mcp/index.ts',
    'core/pipeline/bad.ts → ../../protocols/openai-chat/chat-frames.ts',
    'core/pipeline/bad.ts → gw/plugin',
    'core/routing-bad.ts → ../server/gateway.ts',
    'lib/http/bad.ts → ../../core/context.ts',
    'lib/http/bad.ts → ../../server/gateway.ts',
    'lib/http/bad.ts → gw/plugin',
    'mcp/bad.ts → ../server/gateway.ts',
    'mcp/bad.ts → ../plugins/extensions/budget/index.ts',
    'mcp/bad.ts → gw/plugin',
    'mcp/bad.ts → ../sdk/plugin.ts',
    'core/pipeline/mcp-bad.ts → ../../mcp/index.ts',
    'cli/bad.ts → ../mcp/index.ts',
    'sdk/bad.ts → ../server/log.ts',
    'sdk/bad.ts → ../protocols/gemini/types.ts',
    'sdk/bad.ts → gw/plugin/format',
  ]);
});

test('the kernel reads in one sitting: core/ is at most 3,000 lines', (t) => {
  let lines = 0;
  for (const f of files(join(ROOT, 'core'))) lines += readFileSync(f, 'utf8').split('\n').length - 1;
  t.true(lines > 1000, `${lines} lines: the count reads the kernel`);
  t.true(lines <= 3000, `core/ is ${lines} lines; move what knows no request's path to lib/, or make the kernel smaller`);
});
