/**
 * Finds plugins: `plugins/providers/<kind>/`, `plugins/extensions/<name>/`,
 * `plugins/stores/<name>/` or `plugins/formats/<id>/` in this checkout first, else the npm
 * package `gw-plugin-<name>`. Checks the default export's shape and its `gw` version range
 * before anything runs it (fastify's plugin-utils idea). Which client formats a config
 * enables: load-formats.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import semver from 'semver';
import { UserError } from '../../lib/user-error.ts';
import type { FormatPlugin, Plugin } from './contract.ts';

export const PLUGINS_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url));
const NAME = /^[a-z0-9][a-z0-9_-]*$/;
/** The folder under plugins/ of each kind of plugin that the config names. */
const FOLDER: Record<Plugin['type'], string> = { provider: 'providers', extension: 'extensions', store: 'stores', format: 'formats' };
/** Where a gateway key may come from (lib/http/routes.ts KeySource). */
const KEY_SOURCES: readonly unknown[] = ['bearer', 'x-api-key', 'x-goog-api-key', 'query-key'];

/** The package root: two levels up from here in the sources, three in the compiled dist/. */
export const PACKAGE_ROOT: URL = new URL(existsSync(new URL('../../package.json', import.meta.url)) ? '../../' : '../../../', import.meta.url);

/** The running gw's version (package.json). */
export const GW_VERSION: string = (JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version: string }).version;

/** Where a plugin was found. */
export interface LoadedPlugin<P extends Plugin = Plugin> {
  plugin: P;
  source: 'builtin' | 'npm';
  module: string;
}

/** A plugin that cannot be used: missing, broken, or made for another gw version. */
export class PluginError extends UserError {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'PluginError';
  }
}

/**
 * Runs an npm plugin's `setup` (a store's `open`): what it throws (a database it cannot
 * reach, a bug of its own) is the plugin's failure, not gw's, so it becomes one PluginError
 * line naming the plugin, its package and the error's first line (the CLI prints it and
 * exits 1; the original is its `cause`). A UserError (a ConfigError naming the key at fault)
 * is already such a line and passes unchanged, and so does anything a built-in plugin
 * throws: there it is gw's own bug, whose stack the CLI prints.
 * @throws PluginError, or what `setup` threw.
 */
export async function runSetup<T>(found: LoadedPlugin, name: string, setup: () => T | Promise<T>): Promise<T> {
  try {
    return await setup();
  } catch (err) {
    if (found.source !== 'npm' || err instanceof UserError) throw err;
    const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    const line = reason.split('\n', 1)[0]!.trim();
    const phase = found.plugin.type === 'store' ? 'to open the store' : 'in setup';
    throw new PluginError(`${found.plugin.type} '${name}' from the npm package ${found.module} failed ${phase}: ${line}`, { cause: err });
  }
}

/**
 * Loads the plugin `name` of `type`; undefined when neither a built-in folder nor
 * `gw-plugin-<name>` exists — nor, with `implicit` (the name was not asked for as a plugin:
 * a provider section named like a package, without `kind`), when the package is a plugin of
 * another type.
 * @throws PluginError when the module exists but fails to import, breaks the contract, or
 *   declares a `gw` range the running version is outside of.
 */
export async function findPlugin<T extends Plugin['type']>(
  type: T,
  name: string,
  opts: { implicit?: boolean } = {},
): Promise<LoadedPlugin<Extract<Plugin, { type: T }>> | undefined> {
  if (!NAME.test(name)) return undefined;
  const folder = FOLDER[type];
  const builtin = builtinModule(folder, name);
  if (builtin) {
    const mod = await importOrThrow(pathToFileURL(builtin.path).href, builtin.label);
    return { plugin: check(mod, type, name, `plugins/${folder}/${name}`), source: 'builtin', module: builtin.path };
  }
  const pkg = `gw-plugin-${name}`;
  let mod: unknown;
  try {
    mod = await import(pkg);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if ((e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND') && e.message.includes(`'${pkg}'`)) return undefined;
    throw new PluginError(`npm package ${pkg} failed to load: ${e.message}`, { cause: err });
  }
  const declared = (mod as { default?: { type?: unknown } } | undefined)?.default?.type;
  if (opts.implicit && typeof declared === 'string' && declared !== type) return undefined;
  return { plugin: check(mod, type, name, pkg), source: 'npm', module: pkg };
}

/** The built-in plugin `name` of `folder` (its index.ts or index.js), if there is one. */
export function builtinModule(folder: string, name: string): { path: string; label: string } | undefined {
  for (const file of ['index.ts', 'index.js']) {
    const path = `${PLUGINS_DIR}${folder}/${name}/${file}`;
    if (existsSync(path)) return { path, label: `plugins/${folder}/${name}/${file}` };
  }
  return undefined;
}

async function importOrThrow(url: string, label: string): Promise<unknown> {
  try {
    return await import(url);
  } catch (err) {
    throw new PluginError(`${label} failed to load: ${(err as Error).message}`, { cause: err });
  }
}

function check<T extends Plugin['type']>(mod: unknown, type: T, name: string, where: string): Extract<Plugin, { type: T }> {
  const p = (mod as { default?: Partial<Plugin> }).default;
  const problems: string[] = [];
  if (!p || typeof p !== 'object') problems.push('no default export object');
  else {
    if (p.type !== type) problems.push(`type must be '${type}' (got ${JSON.stringify(p.type)})`);
    if (type === 'format') formatProblems(p as Partial<FormatPlugin>, name, where, problems);
    else if (typeof (p as { name?: unknown }).name !== 'string' || !(p as { name?: unknown }).name) problems.push('name must be a non-empty string');
    const schema = (p as { configSchema?: { safeParse?: unknown } }).configSchema;
    // a store's section may hold nothing but `url`, a format may take no settings: their schema is optional
    const optional = (type === 'store' || type === 'format') && schema === undefined;
    if (!optional && typeof schema?.safeParse !== 'function') problems.push('configSchema must be a zod schema');
    if (type === 'store') {
      if (typeof (p as { open?: unknown }).open !== 'function') problems.push('open must be a function');
      if (typeof (p as { shared?: unknown }).shared !== 'boolean') problems.push('shared must be true or false');
    } else if (typeof (p as { setup?: unknown }).setup !== 'function') problems.push('setup must be a function');
    if (p.gw !== undefined && (typeof p.gw !== 'string' || semver.validRange(p.gw) === null))
      problems.push(`gw must be a semver range (got ${JSON.stringify(p.gw)})`);
    if (type === 'provider' && (p as { routing?: unknown }).routing !== undefined) {
      const r = (p as { routing?: unknown }).routing;
      if (!Array.isArray(r) || r.some((s) => s !== 'max_retries' && s !== 'weight'))
        problems.push(`routing must list 'max_retries' and/or 'weight' (got ${JSON.stringify(r)})`);
    }
  }
  if (problems.length)
    throw new PluginError(`${where} is not a gw ${type === 'format' ? 'client format' : `${type} plugin`} for '${name}': ${problems.join('; ')}`);
  const range = p!.gw;
  if (range !== undefined && !semver.satisfies(GW_VERSION, range, { includePrerelease: true })) {
    throw new PluginError(`${where} supports gw ${range}, but this is gw ${GW_VERSION}; install a version of the plugin made for gw ${GW_VERSION}`);
  }
  return p as Extract<Plugin, { type: T }>;
}

/** What a client format must declare beyond every plugin's fields: its protocol (`name` is the protocol's `id` here). */
function formatProblems(f: Partial<FormatPlugin>, id: string, where: string, problems: string[]): void {
  const p = f.protocol as Partial<FormatPlugin['protocol']> | undefined;
  if (typeof p !== 'object' || p === null) return void problems.push('protocol must be the protocol object it speaks');
  if (p.id !== id) problems.push(`protocol.id must be '${id}' (got ${JSON.stringify(p.id)})`);
  if (typeof p.errorBody !== 'function') problems.push('protocol.errorBody must be a function');
  if (!Array.isArray(p.keyFrom) || p.keyFrom.some((k) => !KEY_SOURCES.includes(k)))
    problems.push(`protocol.keyFrom must be an array of ${KEY_SOURCES.map((k) => `'${k}'`).join(', ')} (got ${JSON.stringify(p.keyFrom)})`);
  // a third-party format's settings are its [formats.<id>] section, not a top-level one
  if (f.section !== undefined && !where.startsWith('plugins/')) problems.push(`section is for built-in formats (its settings are [formats.${id}])`);
}
