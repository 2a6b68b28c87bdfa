/**
 * One loader for every kind of plugin: a `[providers.*]`, `[formats.*]`, `[extensions.*]`
 * or `[store]` section that names a plugin which is missing, fails to import, breaks the
 * contract, is made for another gw version, is given settings its schema rejects, or throws
 * in its setup stops gw with the same line whatever the kind (core/plugins/load.ts).
 */
import test from 'ava';
import { ConfigError } from '../../lib/config/error.ts';
import { PluginError } from '../../core/plugins/loader.ts';
import { GW_VERSION } from '../../lib/package-info.ts';
import { baseConfig, gatewayError } from '../helpers/gateway.ts';
import { tempPackage, uniqueName } from '../helpers/temp-plugin.ts';

type Kind = 'provider' | 'format' | 'extension' | 'store';

/** What is broken in the package: its declaration without one field, its module, its range, or its setup. */
type Failure = 'missing' | 'import' | 'contract' | 'version' | 'settings' | 'setup';

/** A valid declaration of `kind` named `name`, with `extra` fields spread in and `body` run first in its setup (a store's open). */
function declaration(kind: Kind, name: string, extra: string, body: string): string {
  const fields: Record<Kind, string> = {
    provider: `type: 'provider', name: '${name}', setup({ name }) { ${body} return { name, kind: '${name}', models: ['m'], async chat() { throw new Error('unused'); } }; },`,
    format: `type: 'format', protocol: { id: '${name}', label: '${name}', keyFrom: ['bearer'], errorBody: (err) => JSON.stringify({ error: err.message }), client: {} }, setup() { ${body} },`,
    extension: `type: 'extension', name: '${name}', setup() { ${body} },`,
    store: `type: 'store', name: '${name}', shared: false, open() { ${body} throw new Error('unused'); },`,
  };
  // a provider section's `kind` is its plugin's to read too
  const schema = kind === 'provider' ? 'z.strictObject({ kind: z.string() })' : 'z.strictObject({})';
  return `import { z } from 'zod';\nexport default { ${fields[kind]} configSchema: ${schema}, ${extra} };\n`;
}

/** The package's module for one failure. */
function moduleFor(kind: Kind, name: string, failure: Failure): string {
  if (failure === 'import') return "throw new Error('boom at import');\n";
  if (failure === 'contract') return declaration(kind, name, kind === 'store' ? 'open: undefined,' : 'setup: undefined,', '');
  if (failure === 'version') return declaration(kind, name, "gw: '^9.0.0',", '');
  if (failure === 'setup') return declaration(kind, name, '', "throw new Error('boom in setup\\nsecond line');");
  return declaration(kind, name, '', '');
}

/** The config section that names `name` as a `kind`, with `settings` lines in it. */
function sectionFor(kind: Kind, name: string, settings: string): string {
  if (kind === 'provider') return `[providers.x]\nkind = "${name}"\n${settings}`;
  if (kind === 'format') return `[formats.${name}]\n${settings}`;
  if (kind === 'extension') return `[extensions.${name}]\n${settings}`;
  return `[store]\nurl = "${name}://db/0"\n${settings}`;
}

/** Where errors about the section are named, as a regex fragment. */
const PATH: Record<Kind, (name: string) => string> = {
  provider: () => 'providers\\.x',
  format: (name) => `formats\\.${name}`,
  extension: (name) => `extensions\\.${name}`,
  store: () => 'store',
};
const LABEL: Record<Kind, string> = { provider: 'provider kind', format: 'client format', extension: 'extension', store: 'store' };
const HINT: Record<Kind, string> = {
  provider: '; give base_url for an OpenAI-compatible upstream',
  format: '',
  extension: '',
  store: '; the scheme of \\[store\\] url names the store plugin',
};
const VERSION = GW_VERSION.replace(/\./g, '\\.');

/** The error class and line expected for `kind` × `failure`, the package being gw-plugin-`name`. */
function expected(kind: Kind, name: string, failure: Failure): { type: typeof ConfigError | typeof PluginError; line: RegExp } {
  const pkg = `gw-plugin-${name}`;
  const at = kind === 'store' && failure === 'missing' ? 'store\\.url' : PATH[kind](name);
  switch (failure) {
    case 'missing':
      return { type: ConfigError, line: new RegExp(`: ${at}: no built-in ${LABEL[kind]} '${name}' and the npm package ${pkg} is not installed${HINT[kind]}$`) };
    case 'import':
      return { type: PluginError, line: new RegExp(`^${pkg} failed to load: boom at import$`) };
    case 'contract':
      return {
        type: PluginError,
        line: new RegExp(`^${pkg} is not a gw ${kind} plugin for '${name}': ${kind === 'store' ? 'open' : 'setup'} must be a function$`),
      };
    case 'version':
      return {
        type: PluginError,
        line: new RegExp(`^${pkg} supports gw \\^9\\.0\\.0, but this is gw ${VERSION}; install a version of the plugin made for gw ${VERSION}$`),
      };
    case 'settings':
      return { type: ConfigError, line: new RegExp(`: ${at}: unknown key 'nope'$`) };
    case 'setup':
      return {
        type: PluginError,
        line: new RegExp(`^${kind} '${kind === 'provider' ? 'x' : name}' from the npm package ${pkg} failed in setup: Error: boom in setup$`),
      };
  }
}

const KINDS: readonly Kind[] = ['provider', 'format', 'extension', 'store'];
const FAILURES: readonly Failure[] = ['missing', 'import', 'contract', 'version', 'settings', 'setup'];

for (const kind of KINDS)
  for (const failure of FAILURES)
    test(`${kind} × ${failure}: the same line as every kind`, async (t) => {
      const name = uniqueName(`zz-${kind}-${failure}`);
      if (failure !== 'missing') await tempPackage(t, name, moduleFor(kind, name, failure));
      const err = await gatewayError(t, baseConfig(sectionFor(kind, name, failure === 'settings' ? 'nope = 1\n' : '')));
      const { type, line } = expected(kind, name, failure);
      t.true(err instanceof type, `${err.name}: ${err.message}`);
      t.regex(err.message, line);
    });
