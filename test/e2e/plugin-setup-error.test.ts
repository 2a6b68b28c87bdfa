/**
 * A third-party plugin whose `setup` throws (test/fixtures/gw-plugin-faulty, installed as a
 * devDependency) stops `gw serve` with one line on stderr naming the plugin, its npm
 * package and the error, and exit code 1 — not "internal error" and a stack.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { runToExit } from '../helpers/gateway.ts';

test('gw serve with an extension whose setup throws: one line naming the plugin, its package and the error; exit 1', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-faulty-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const config = join(dir, 'gateway.toml');
  await writeFile(
    config,
    `listen = "127.0.0.1:0"\nadmin_token = "sk-admin-faulty-0123456789abcdef"\n\n[keys.default]\nkey = "sk-faulty-key-0123456789abcdef"\n\n[providers.mock]\nmodels = ["mock-1"]\n\n[extensions.usage]\n[extensions.faulty]\nsink = "http://127.0.0.1:9/audit"\n`,
  );
  const r = await runToExit(['serve', '--config', config, '--bind', '127.0.0.1:0']);
  t.is(r.code, 1);
  t.is(
    r.stderr,
    "gw: extension 'faulty' from the npm package gw-plugin-faulty failed in setup: Error: cannot reach the audit sink at http://127.0.0.1:9/audit: connect ECONNREFUSED 127.0.0.1:9\n",
  );
  t.notRegex(r.stdout, /listening on/);
});
