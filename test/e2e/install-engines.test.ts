/**
 * First contact: `npm ci` under an older system node prints no EBADENGINE warnings (the
 * project's .npmrc), `engines` tells the truth about what gw's runtime dependencies need,
 * and `gw` started on a node outside it says in one line what to do.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import semver from 'semver';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GW_BIN = join(ROOT, 'cli/gw.js');

interface LockEntry {
  dev?: boolean;
  engines?: { node?: string };
  link?: boolean;
}

const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(join(ROOT, file), 'utf8')) as T;

/** `npm <args>` in `cwd`, offline; its combined output. */
async function npm(cwd: string, args: string[]): Promise<string> {
  // under `npm test` npm may pass its own loglevel down: the probe must read the .npmrc's
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.toLowerCase() !== 'npm_config_loglevel'));
  const r = await run('npm', [...args, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd, env });
  return r.stdout + r.stderr;
}

test("npm ci with the project's .npmrc prints no engine warning for a dependency whose engines exclude the running node", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-npmrc-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // a dependency no node satisfies: npm warns about it on any machine, as it does for gw's under Node 20
  await mkdir(join(dir, 'dep'));
  await writeFile(join(dir, 'dep/package.json'), JSON.stringify({ name: 'dep', version: '1.0.0', engines: { node: '<1' } }));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'probe', version: '1.0.0', dependencies: { dep: 'file:./dep' } }));
  const without = await npm(dir, ['install']);
  t.regex(without, /EBADENGINE/, 'the probe makes npm warn');
  await rm(join(dir, 'node_modules'), { recursive: true });
  await copyFile(join(ROOT, '.npmrc'), join(dir, '.npmrc'));
  const out = await npm(dir, ['ci']);
  t.notRegex(out, /EBADENGINE|npm warn/);
  t.regex(out, /added 1 package/);
});

test("engines is the truth: every runtime dependency's engines admits every node gw's engines admits, and the lockfile agrees", async (t) => {
  const pkg = await readJson<{ engines: { node: string }; devDependencies: Record<string, string> }>('package.json');
  const lock = await readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');
  t.is(lock.packages['']!.engines?.node, pkg.engines.node);
  let checked = 0;
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev || entry.link || !entry.engines?.node) continue;
    checked++;
    t.true(semver.subset(pkg.engines.node, entry.engines.node), `${path} needs node ${entry.engines.node}`);
  }
  t.true(checked > 0);
  // the Node 24 that npm scripts and npx run gw on is inside it
  t.true(semver.satisfies(pkg.devDependencies.node!, pkg.engines.node));
  t.true(semver.satisfies(process.version, pkg.engines.node));
});

test('gw on a node outside engines: one line saying what to do, exit 1', async (t) => {
  const { engines } = await readJson<{ engines: { node: string } }>('package.json');
  const old = "data:text/javascript,Object.defineProperty(process,'version',{value:'v20.20.2'})";
  const err = await t.throwsAsync(run(process.execPath, ['--import', old, GW_BIN, '--help']));
  const { code, stderr } = err as unknown as { code: number; stderr: string };
  t.is(code, 1);
  t.is(
    stderr,
    `gw needs Node.js ${engines.node}, 24 recommended (this is v20.20.2); run it through npm (npm start, npx gw), which puts the project's Node 24 first on PATH\n`,
  );
});
