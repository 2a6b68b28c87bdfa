/**
 * `gw serve` replaces itself once with its V8 and malloc settings (cli/heap.ts): same pid,
 * still serving; an operator's own settings are kept, and with all of them given nothing is
 * re-executed.
 */
import test from 'ava';
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findJemalloc } from '../../cli/heap.ts';
import { spawnGateway } from '../helpers/gateway.ts';

const linux = process.platform === 'linux';

async function serveAndRead(
  t: import('ava').ExecutionContext,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
): Promise<{ cmdline: string[]; environ: string[]; maps: string; health: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-heap-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.toml');
  await writeFile(file, 'listen = "127.0.0.1:0"\nadmin_token = "sk-heap-admin-0123456789abcdef"\n\n[providers.mock]\nmodels = ["mock-a"]\n');
  const gw = await spawnGateway(['serve', '--config', file], { env, nodeArgs });
  t.teardown(async () => {
    gw.child.kill('SIGTERM');
    await gw.exited;
  });
  const pid = gw.child.pid!;
  const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
  const environ = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
  const maps = await readFile(`/proc/${pid}/maps`, 'utf8');
  const health = (await fetch(`${gw.url}/health`)).status;
  return { cmdline, environ, maps, health };
}

(linux ? test : test.skip)(
  'gw serve runs with an 8 MB semi-space, a 1.5x old-generation growing factor and two malloc arenas, in the same process',
  async (t) => {
    const { cmdline, environ, health } = await serveAndRead(t, { MALLOC_ARENA_MAX: undefined, NODE_OPTIONS: undefined });
    t.true(cmdline.includes('--max-semi-space-size=8'), cmdline.join(' '));
    t.true(cmdline.includes('--heap-growing-percent=50'), cmdline.join(' '));
    t.true(environ.includes('MALLOC_ARENA_MAX=2'));
    t.is(health, 200);
  },
);

(linux ? test : test.skip)("an operator's --max-semi-space-size and MALLOC_ARENA_MAX are kept", async (t) => {
  const { cmdline, environ, health } = await serveAndRead(t, { MALLOC_ARENA_MAX: '4', NODE_OPTIONS: '--max-semi-space-size=32' });
  t.false(
    cmdline.some((a) => a.startsWith('--max-semi-space-size')),
    cmdline.join(' '),
  );
  // the growing factor the operator did not give is still applied
  t.true(cmdline.includes('--heap-growing-percent=50'), cmdline.join(' '));
  t.true(environ.includes('MALLOC_ARENA_MAX=4'));
  t.is(health, 200);
});

(linux ? test : test.skip)("an operator's --heap-growing-percent (node's command line: NODE_OPTIONS refuses it) is kept", async (t) => {
  const { cmdline, environ, health } = await serveAndRead(t, { NODE_OPTIONS: '--max-semi-space-size=16', GW_MALLOC: 'system' }, ['--heap-growing-percent=30']);
  t.deepEqual(
    cmdline.filter((a) => a.startsWith('--heap-growing-percent')),
    ['--heap-growing-percent=30'],
  );
  // everything was given: no re-exec, so no mark in the environment
  t.false(environ.includes('GW_HEAP_TUNED=1'));
  t.is(health, 200);
});

(linux ? test : test.skip)('a profiled gw is not re-executed: its one profile covers the whole run', async (t) => {
  const profDir = await mkdtemp(join(tmpdir(), 'gw-heap-prof-'));
  t.teardown(() => rm(profDir, { recursive: true, force: true }));
  const { cmdline, health } = await serveAndRead(t, { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profDir}` });
  t.false(
    cmdline.some((a) => a.startsWith('--max-semi-space-size')),
    cmdline.join(' '),
  );
  t.is(health, 200);
});

const jemalloc = linux ? findJemalloc() : undefined;

(jemalloc ? test : test.skip)('with jemalloc on the system, gw serve runs on it; GW_MALLOC=system keeps glibc', async (t) => {
  const on = await serveAndRead(t, { LD_PRELOAD: undefined, MALLOC_CONF: undefined, GW_MALLOC: undefined });
  t.true(on.environ.includes(`LD_PRELOAD=${jemalloc}`));
  t.true(on.maps.includes('libjemalloc'), 'the library is mapped into the serving process');
  t.is(on.health, 200);
  const off = await serveAndRead(t, { LD_PRELOAD: undefined, GW_MALLOC: 'system' });
  t.false(off.maps.includes('libjemalloc'));
  t.is(off.health, 200);
});
