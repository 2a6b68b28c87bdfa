/**
 * Foundation: the plugin loader's npm path. `gw-plugin-echo` (test/fixtures/gw-plugin-echo,
 * installed as a devDependency) is a third-party provider kind loaded from node_modules;
 * malformed packages fail with a clear PluginError.
 */
import test from 'ava';
import OpenAI from 'openai';
import { ConfigError } from '../../lib/config/error.ts';
import { findPlugin, PluginError } from '../../core/plugins/loader.ts';
import { GW_VERSION } from '../../lib/package-info.ts';
import { baseConfig, KEY, gatewayError, startGateway } from '../helpers/gateway.ts';
import { tempPackage, uniqueName } from '../helpers/temp-plugin.ts';

test('findPlugin finds the echo kind in node_modules (gw-plugin-echo)', async (t) => {
  const found = await findPlugin('provider', 'echo');
  t.truthy(found);
  t.is(found!.source, 'npm');
  t.is(found!.module, 'gw-plugin-echo');
  t.is(found!.plugin.name, 'echo');
  t.is(await findPlugin('provider', 'not-installed-anywhere'), undefined);
});

test('[providers.myecho] kind = "echo" serves chat, stream and /v1/models from the npm plugin', async (t) => {
  const gw = await startGateway(baseConfig('[providers.myecho]\nkind = "echo"\nmodels = ["echo-1"]\nprefix = ">> "\n'));
  t.teardown(() => gw.stop());
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 });
  const c = await client.chat.completions.create({ model: 'echo-1', messages: [{ role: 'user', content: 'hello plugin world' }] });
  t.is(c.choices[0]!.message.content, '>> HELLO PLUGIN WORLD');
  const stream = await client.chat.completions.create({ model: 'echo-1', messages: [{ role: 'user', content: 'a b c' }], stream: true });
  const parts: string[] = [];
  for await (const ch of stream) parts.push(ch.choices[0]?.delta?.content ?? '');
  t.is(parts.join(''), '>> A B C');
  t.true(parts.filter(Boolean).length >= 4);
  const models: string[] = [];
  for await (const m of client.models.list()) models.push(m.id);
  t.deepEqual(models, ['echo-1']);
});

test('the npm plugin validates its own section: an unknown field names the key path', async (t) => {
  const err = await gatewayError(t, '[providers.myecho]\nkind = "echo"\nprefx = "typo"\n');
  t.true(err instanceof ConfigError);
  t.regex(err.message, /providers\.myecho: unknown key 'prefx'/);
});

test('a plugin of the wrong type: PluginError saying what it must be', async (t) => {
  const err = await gatewayError(t, '[extensions.echo]\n');
  t.true(err instanceof PluginError);
  t.regex(err.message, /gw-plugin-echo is not a gw extension plugin for 'echo': type must be 'extension'/);
});

test('a malformed plugin (no setup): PluginError naming the package and the missing field', async (t) => {
  const name = uniqueName('zz-nosetup');
  await tempPackage(t, name, "import { z } from 'zod';\nexport default { type: 'provider', name: 'nosetup', configSchema: z.object({}) };\n");
  const err = await gatewayError(t, `[providers.x]\nkind = "${name}"\napi_key = "k"\n`);
  t.true(err instanceof PluginError);
  t.is(err.name, 'PluginError');
  t.regex(err.message, new RegExp(`gw-plugin-${name} is not a gw provider plugin .*setup must be a function`));
});

test('a plugin without a default export, or that throws on import: PluginError', async (t) => {
  const none = uniqueName('zz-nodefault');
  await tempPackage(t, none, 'export const setup = () => ({});\n');
  t.regex((await t.throwsAsync(findPlugin('provider', none), { instanceOf: PluginError })).message, /no default export object/);
  const throws = uniqueName('zz-throws');
  await tempPackage(t, throws, "throw new Error('boom at import');\n");
  t.regex(
    (await t.throwsAsync(findPlugin('provider', throws), { instanceOf: PluginError })).message,
    new RegExp(`gw-plugin-${throws} failed to load: boom at import`),
  );
});

test('a plugin made for another gw version is refused at load, naming both versions', async (t) => {
  const name = uniqueName('zz-future');
  await tempPackage(
    t,
    name,
    "import { z } from 'zod';\nexport default { type: 'extension', name: 'future', gw: '^9.0.0', configSchema: z.object({}), setup() {} };\n",
  );
  const err = await gatewayError(t, `[extensions.${name}]\n`);
  t.true(err instanceof PluginError);
  t.regex(err.message, new RegExp(`gw-plugin-${name} supports gw \\^9\\.0\\.0, but this is gw ${GW_VERSION.replace(/\./g, '\\.')}`));
  const bad = uniqueName('zz-badrange');
  await tempPackage(
    t,
    bad,
    "import { z } from 'zod';\nexport default { type: 'extension', name: 'badrange', gw: 'soon', configSchema: z.object({}), setup() {} };\n",
  );
  t.regex((await gatewayError(t, `[extensions.${bad}]\n`)).message, /gw must be a semver range \(got "soon"\)/);
});

test('routing settings are read by the core only for kinds that declare them; others get a config error naming the key', async (t) => {
  const name = uniqueName('zz-norouting');
  await tempPackage(
    t,
    name,
    "import { z } from 'zod';\nexport default { type: 'provider', name: 'norouting', configSchema: z.looseObject({}), setup({ name }) { return { name, kind: 'norouting', models: ['m'], async chat() { throw new Error('unused'); } }; } };\n",
  );
  const err = await gatewayError(t, `[providers.x]\nkind = "${name}"\nmax_retries = 3\n`);
  t.true(err instanceof ConfigError);
  t.regex(err.message, new RegExp(`providers\\.x\\.max_retries: provider kind '${name}' does not accept max_retries`));
  // a kind that declares them (the built-in openai) gets them checked by the core's schema
  const range = await gatewayError(t, '[providers.o]\nkind = "openai"\napi_key = "k"\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["m"]\nweight = -1\n');
  t.regex(range.message, /providers\.o\.weight/);
});
