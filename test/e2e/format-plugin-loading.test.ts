/**
 * Loading third-party client formats: `[formats.<name>]` enables the npm package
 * `gw-plugin-<name>`, checked against the format contract and its `gw` range before it runs;
 * its section is checked by its own schema (errors name the key path); a failing setup (a
 * route another format or the core already serves included) is one line naming the format
 * and its package. Built-in formats are always on and take no section. `[formats]` needs a
 * restart, like `[extensions]`.
 */
import { writeFile } from 'node:fs/promises';
import test from 'ava';
import { ConfigError } from '../../lib/config/error.ts';
import { PluginError } from '../../core/plugins/loader.ts';
import { GW_VERSION } from '../../lib/package-info.ts';
import { ADMIN_TOKEN, baseConfig, KEY, gatewayError, startGateway } from '../helpers/gateway.ts';
import { tempPackage, uniqueName } from '../helpers/temp-plugin.ts';

/** A format module's source: `fields` spread into a valid declaration, `protocol` into its protocol (id `<name>`), so a test can break one field. */
function formatModule(name: string, fields = '', setup = '', protocol = ''): string {
  return `export default {
  type: 'format',
  protocol: {
    id: '${name}',
    label: '${name}',
    keyFrom: ['bearer'],
    errorBody: (err) => JSON.stringify({ error: err.message }),
    client: {},
    ${protocol}
  },
  setup({ route }) {
    ${setup}
    route({ method: 'GET', path: '/${name}/hello', handler(ctx) { ctx.body = { hello: '${name}' }; } });
  },
  ${fields}
};
`;
}

test("[formats.<name>] settings are checked by the format's schema: errors name the key path", async (t) => {
  const typo = await gatewayError(t, baseConfig('[formats.ollama]\nprefix = "/x"\n'));
  t.true(typo instanceof ConfigError);
  t.regex(typo.message, /formats\.ollama: unknown key 'prefix'/);
  const bad = await gatewayError(t, baseConfig('[formats.ollama]\npath_prefix = "api"\n'));
  t.regex(bad.message, /formats\.ollama\.path_prefix: expected a path such as "\/api"/);
});

test('a built-in format takes no [formats] section; a format that is not installed is named', async (t) => {
  const builtin = await gatewayError(t, baseConfig('[formats.openai-chat]\n'));
  t.true(builtin instanceof ConfigError);
  t.regex(builtin.message, /formats\.openai-chat: 'openai-chat' is a built-in client format, always on: it takes no \[formats\] section/);
  const missing = await gatewayError(t, baseConfig('[formats.zz-not-installed]\n'));
  t.regex(
    missing.message,
    /formats\.zz-not-installed: no built-in client format 'zz-not-installed' and the npm package gw-plugin-zz-not-installed is not installed/,
  );
});

test('a format without a configSchema takes no settings, and serves its routes with its error shape', async (t) => {
  const name = uniqueName('zz-plain');
  await tempPackage(t, name, formatModule(name));
  const err = await gatewayError(t, baseConfig(`[formats.${name}]\nsomething = 1\n`));
  t.regex(err.message, new RegExp(`formats\\.${name}: unknown key 'something'`));
  const gw = await startGateway(baseConfig(`[formats.${name}]\n`));
  t.teardown(() => gw.stop());
  const ok = await fetch(`${gw.url}/${name}/hello`, { headers: { authorization: `Bearer ${KEY}` } });
  t.deepEqual(await ok.json(), { hello: name });
  const refused = await fetch(`${gw.url}/${name}/hello`);
  t.is(refused.status, 401);
  t.deepEqual(Object.keys((await refused.json()) as object), ['error']);
});

test('the contract is checked before anything runs: each broken field named with the package', async (t) => {
  const name = uniqueName('zz-broken');
  await tempPackage(t, name, formatModule(name, "section: 'mine',", '', "id: 'other', keyFrom: ['cookie'], errorBody: undefined,"));
  const err = await gatewayError(t, baseConfig(`[formats.${name}]\n`));
  t.true(err instanceof PluginError);
  t.regex(err.message, new RegExp(`^gw-plugin-${name} is not a gw format plugin for '${name}': `));
  t.regex(err.message, /protocol\.id must be '.*' \(got "other"\)/);
  t.regex(err.message, /protocol\.errorBody must be a function/);
  t.regex(err.message, /protocol\.keyFrom: 'cookie' is a header HTTP or gw reads for itself/);
  t.regex(err.message, new RegExp(`section is for built-in formats \\(its settings are \\[formats\\.${name}\\]\\)`));
});

test("a format's protocol object: its id, key sources and error body checked field by field; a format without one is refused", async (t) => {
  const name = uniqueName('zz-protocol');
  await tempPackage(t, name, `export default { type: 'format', protocol: { id: 'other', keyFrom: ['?'] }, setup() {} };\n`);
  const err = await gatewayError(t, baseConfig(`[formats.${name}]\n`));
  t.true(err instanceof PluginError);
  t.regex(err.message, new RegExp(`^gw-plugin-${name} is not a gw format plugin for '${name}': `));
  t.regex(err.message, /protocol\.id must be '.*' \(got "other"\)/);
  t.regex(err.message, /protocol\.errorBody must be a function/);
  t.regex(err.message, /protocol\.keyFrom: '\?' is not a query parameter name/);
  const shapeless = uniqueName('zz-protocol');
  await tempPackage(t, shapeless, `export default { type: 'format', protocol: 'openai', setup() {} };\n`);
  t.regex((await gatewayError(t, baseConfig(`[formats.${shapeless}]\n`))).message, /protocol must be a protocol object/);
  const bare = uniqueName('zz-protocol');
  await tempPackage(t, bare, `export default { type: 'format', id: '${bare}', keyFrom: ['bearer'], errorBody: () => '{}', setup() {} };\n`);
  t.regex((await gatewayError(t, baseConfig(`[formats.${bare}]\n`))).message, /protocol must be a protocol object/);
});

test('a format made for another gw version is refused at load, naming both versions', async (t) => {
  const name = uniqueName('zz-future');
  await tempPackage(t, name, formatModule(name, "gw: '^9.0.0',"));
  const err = await gatewayError(t, baseConfig(`[formats.${name}]\n`));
  t.true(err instanceof PluginError);
  t.regex(err.message, new RegExp(`gw-plugin-${name} supports gw \\^9\\.0\\.0, but this is gw ${GW_VERSION.replace(/\./g, '\\.')}`));
});

test('a setup that throws, or a route already served, is one line naming the format and its package', async (t) => {
  const name = uniqueName('zz-throws');
  await tempPackage(t, name, formatModule(name, '', "throw new Error('no model registry at localhost:1\\nsecond line');"));
  const err = await gatewayError(t, baseConfig(`[formats.${name}]\n`));
  t.true(err instanceof PluginError);
  t.is(err.message, `format '${name}' from the npm package gw-plugin-${name} failed in setup: Error: no model registry at localhost:1`);
  for (const [path, owner] of [
    ['/v1/chat/completions', 'openai-chat'],
    ['/health', 'core'],
  ] as const) {
    const clash = uniqueName(`zz-clash-${owner}`);
    await tempPackage(
      t,
      clash,
      formatModule(clash, '', `route({ method: ${JSON.stringify(path === '/health' ? 'GET' : 'POST')}, path: '${path}', handler() {} });`),
    );
    const e = await gatewayError(t, baseConfig(`[formats.${clash}]\n`));
    t.true(e instanceof PluginError);
    t.regex(
      e.message,
      new RegExp(
        `^format '${clash}' from the npm package gw-plugin-${clash} failed in setup: Error: route (GET|POST) ${path} registered twice \\(by ${owner} and ${clash}\\)$`,
      ),
    );
  }
});

test('[formats] is read once at startup: a reload that changes it keeps the running formats and says so', async (t) => {
  const gw = await startGateway(baseConfig('[formats.ollama]\n'));
  t.teardown(() => gw.stop());
  await writeFile(gw.configPath, baseConfig('[formats.ollama]\npath_prefix = "/other"\n'));
  const r = await fetch(`${gw.url}/v1/admin/reload`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.is(r.status, 200);
  const { warnings } = (await r.json()) as { warnings: string[] };
  t.true(warnings.includes('[formats] changed: it takes effect after a restart; the running value is kept'), warnings.join('\n'));
  t.is((await fetch(`${gw.url}/api/tags`, { headers: { authorization: `Bearer ${KEY}` } })).status, 200);
});
