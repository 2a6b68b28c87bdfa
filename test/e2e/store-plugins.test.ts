/**
 * Store backends are plugins: the scheme of `[store] url` names the store plugin, found in
 * plugins/stores/<name>/ or as the npm package gw-plugin-<name>, with the same checks and the
 * same one-line setup error as providers and extensions. gw-plugin-memory
 * (test/fixtures/gw-plugin-memory, a devDependency) is a third-party store written only
 * against `gw/plugin`; the throwaway packages below stand for others.
 */
import test, { type ExecutionContext } from 'ava';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import memory from 'gw-plugin-memory';
import { ConfigError } from '../../lib/config/error.ts';
import { parseConfig } from '../../server/config/load.ts';
import { UserError } from '../../lib/user-error.ts';
import { createLogger } from '../../server/log.ts';
import { PluginError } from '../../core/plugins/loader.ts';
import { openStore } from '../../server/open-store.ts';
import { serve } from '../../server/server.ts';
import { baseConfig } from '../helpers/gateway.ts';
import { tempPackage } from '../helpers/temp-plugin.ts';
import { admin, client, gatewayWith, openaiUpstream } from '../helpers/ext-helpers.ts';

const log = createLogger('silent');

/** A config read from `toml` as if it were the file `<temp dir>/gateway.toml`. */
async function config(t: ExecutionContext, toml: string) {
  const dir = await mkdtemp(join(tmpdir(), 'gw-stores-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.toml');
  await writeFile(file, toml);
  return parseConfig(toml, file, file, {});
}

test('[store] url = "memory://…" opens the npm store plugin: it serves chat and stream with the usage extension, and keeps their usage', async (t) => {
  const url = `memory://e2e-${process.pid}`;
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 11, completion_tokens: 4 }) });
  const gw = await gatewayWith(t, up, `[store]\nurl = "${url}"\n\n[extensions.usage]\n`);
  t.deepEqual(gw.running.gateway.storeKind, { name: 'memory', shared: false });
  const c = client(gw);
  const answer = await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  t.is(answer.choices[0]!.finish_reason, 'stop');
  const stream = await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true });
  let chunks = 0;
  for await (const _ of stream) chunks++;
  t.true(chunks > 1);
  const usage = await admin(gw, 'GET', '/v1/usage');
  t.like(usage.body[0], { key: 'default', model: 'gpt-4o', requests: 2, prompt_tokens: 22, completion_tokens: 8 });
  t.false(existsSync(join(gw.dir, 'data')), 'no LevelDB store under data_dir');
  // the records are in the plugin's store: another open of the same url reads them
  const again = await memory.open({ url, config: {}, dataDir: gw.dir, log });
  const kept: string[] = [];
  for await (const [k] of again.namespace('ext:usage').entries()) kept.push(k);
  t.true(kept.length > 0, 'the usage extension wrote to the memory store');
});

test('the scheme names the store: an unknown one is a config error naming store.url and the package; <name>s falls back to <name>; no url is LevelDB', async (t) => {
  const unknown = await t.throwsAsync(openStore(await config(t, '[store]\nurl = "nosuch://host/0"\n'), log), { instanceOf: ConfigError });
  t.regex(
    unknown.message,
    /: store\.url: no built-in store 'nosuch' and the npm package gw-plugin-nosuch is not installed; the scheme of \[store\] url names the store plugin$/,
  );
  const tls = await openStore(await config(t, '[store]\nurl = "MEMORYS://tls-fallback"\n'), log);
  t.deepEqual([tls.name, tls.shared], ['memory', false]);
  await tls.store.close();
  const level = await openStore(await config(t, 'data_dir = "state"\n'), log);
  t.deepEqual([level.name, level.shared], ['level', false]);
  await level.store.close();
  const notUrl = await t.throwsAsync(config(t, '[store]\nurl = "localhost:6379"\n'), { instanceOf: ConfigError });
  t.regex(notUrl.message, /store\.url: expected a URL whose scheme names the store, e.g\. "redis:\/\/host:port\/db"/);
  // LevelDB takes no url; the message masks a password
  const levelUrl = await t.throwsAsync(openStore(await config(t, '[store]\nurl = "level://:pw-secret@x/0"\n'), log), { instanceOf: UserError });
  t.is(
    levelUrl.message,
    'cannot open the store [store] url = "level://:***@x/0": LevelDB takes no url; without [store] url the store is LevelDB under data_dir',
  );
});

test("the rest of [store] is the store plugin's: checked by its configSchema and handed to open; a plugin without one takes nothing but url", async (t) => {
  await tempPackage(
    t,
    'labelled-store',
    `import { z } from 'zod';
import memory from 'gw-plugin-memory';
export default {
  type: 'store',
  name: 'labelled-store',
  shared: true,
  configSchema: z.strictObject({ label: z.string(), pool: z.number().int().default(4) }),
  open(ctx) {
    globalThis.labelledStoreSetup = { url: ctx.url, config: ctx.config, dataDir: ctx.dataDir };
    return memory.open({ ...ctx, url: 'memory://labelled' });
  },
};
`,
  );
  const opened = await openStore(await config(t, '[store]\nurl = "labelled-store://db/1"\nlabel = "blue"\n'), log);
  t.deepEqual([opened.name, opened.shared], ['labelled-store', true]);
  await opened.store.close();
  const setup = (globalThis as { labelledStoreSetup?: { url: string; config: unknown; dataDir: string } }).labelledStoreSetup!;
  t.is(setup.url, 'labelled-store://db/1');
  t.deepEqual(setup.config, { label: 'blue', pool: 4 });
  t.true(isAbsolute(setup.dataDir));
  const bad = await t.throwsAsync(openStore(await config(t, '[store]\nurl = "labelled-store://db/1"\nlabel = 5\n'), log), { instanceOf: ConfigError });
  t.regex(bad.message, /: store\.label: /);
  const extra = await t.throwsAsync(openStore(await config(t, '[store]\nurl = "memory://x"\npool = 3\n'), log), { instanceOf: ConfigError });
  t.regex(extra.message, /: store: unknown key 'pool'$/);
});

test('an npm store that fails to open stops gw with one line naming the plugin, its package and the error; a broken one is a PluginError', async (t) => {
  await tempPackage(
    t,
    'down-store',
    `export default { type: 'store', name: 'down-store', shared: true, open() { throw new Error('connection refused\\n    at somewhere'); } };\n`,
  );
  const down = await t.throwsAsync(openStore(await config(t, '[store]\nurl = "down-store://db"\n'), log), { instanceOf: PluginError });
  t.is(down.message, "store 'down-store' from the npm package gw-plugin-down-store failed in setup: Error: connection refused");
  await tempPackage(t, 'shapeless-store', `export default { type: 'store', name: 'shapeless-store', open: 'no' };\n`);
  const broken = await t.throwsAsync(openStore(await config(t, '[store]\nurl = "shapeless-store://db"\n'), log), { instanceOf: PluginError });
  t.is(broken.message, "gw-plugin-shapeless-store is not a gw store plugin for 'shapeless-store': open must be a function; shared must be true or false");
});

test('a --workers worker refuses a store that only one process may open, before it listens', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-stores-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.toml');
  await writeFile(file, baseConfig('[providers.mock]\nmodels = ["m"]\n\n[store]\nurl = "memory://workers"\n'));
  const err = await t.throwsAsync(serve({ config: file, log, announce: () => t.fail('it listened'), workers: 2 }), { instanceOf: ConfigError });
  t.is(
    err.message,
    `${file}: store.url: --workers 2 needs a shared store: the store 'memory' belongs to one process; use one that several processes share, e.g. [store] url = "redis://host:port/db"`,
  );
});
