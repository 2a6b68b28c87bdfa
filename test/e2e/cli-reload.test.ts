/**
 * SIGHUP on a `gw serve` process re-reads the config file: a good file applies at once,
 * a bad one is logged with its error and the running config keeps serving.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { baseConfig, KEY, spawnGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, startUpstream } from '../helpers/upstream.ts';

async function chatStatus(url: string, model: string): Promise<number> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Polls `check` every 25 ms until it is true or `ms` pass. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

test('SIGHUP applies a good file and refuses a bad one, keeping the running config', async (t) => {
  const up = await startUpstream((_req, res) => replyJson(res, 200, fixture('openai/spec-examples/chat.default.response.json')));
  const dir = await mkdtemp(join(tmpdir(), 'gw-sighup-'));
  const config = join(dir, 'gateway.toml');
  const provider = `[providers.up]\nkind = "openai"\napi_key = "sk-up"\nbase_url = "${up.origin}/v1"\nmodels = ["m1"]\n`;
  await writeFile(config, baseConfig(provider));
  const gw = await spawnGateway(['serve', '--config', config]);
  t.teardown(async () => {
    gw.child.kill('SIGKILL');
    await up.close();
    await rm(dir, { recursive: true, force: true });
  });
  t.is(await chatStatus(gw.url, 'fast'), 404);

  await writeFile(config, baseConfig(`${provider}\n[aliases]\nfast = "m1"\n`));
  gw.child.kill('SIGHUP');
  t.true(await eventually(async () => (await chatStatus(gw.url, 'fast')) === 200), 'the new alias serves');

  await writeFile(config, baseConfig(`${provider}\n[aliases]\nfast = "m1"\nbroken = \n`));
  gw.child.kill('SIGHUP');
  t.true(await eventually(() => gw.stdout().includes('reload refused')), gw.stdout());
  const line = gw
    .stdout()
    .split('\n')
    .find((l) => l.includes('reload refused'))!;
  t.regex(JSON.parse(line).err, /gateway\.toml: TOML syntax error/);
  t.is(gw.child.exitCode, null, 'still running');
  t.is(await chatStatus(gw.url, 'fast'), 200);
  t.false(gw.stdout().includes('sk-up'), 'no secret in the logs');
});
