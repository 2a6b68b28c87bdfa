/**
 * Finding and checking plugins: `plugins/<folder>/<name>/` in this checkout first, else the
 * npm package `gw-plugin-<name>`; the default export's shape and its `gw` range are checked
 * before anything runs it (fastify's plugin-utils idea). Parsing and setup: load.ts.
 */
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import semver from 'semver';
import { GW_VERSION } from '../../lib/package-info.ts';
import { UserError } from '../../lib/user-error.ts';
import { keySourceProblem } from '../../lib/http/key-sources.ts';
import type { FormatPlugin, Plugin } from './contract.ts';

export const PLUGINS_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url));
const NAME = /^[a-z0-9][a-z0-9_-]*$/;
/** The folder under plugins/ of each kind of plugin that the config names. */
const FOLDER: Record<Plugin['type'], string> = { provider: 'providers', extension: 'extensions', store: 'stores', format: 'formats' };

/** Where a plugin was found. */
export interface LoadedPlugin<P extends Plugin = Plugin> {
  plugin: P;
  /** The name it was found under (a fallback's, when the asked name had none). */
  name: string;
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
 * Imports and checks the plugin `name` of `type`; undefined when there is none (with `implicit`,
 * also when the package is another type's). @throws PluginError: fails to import, breaks the contract, wrong gw.
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
    return { plugin: check(mod, type, name, `plugins/${folder}/${name}`), name, source: 'builtin', module: builtin.path };
  }
  const pkg = `gw-plugin-${name}`;
  let mod: unknown;
  try {
    mod = await import(pkg);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if ((e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND') && e.message.includes(`'${pkg}'`)) return undefined;
    throw new PluginError(`${pkg} failed to load: ${e.message}`, { cause: err });
  }
  const declared = (mod as { default?: { type?: unknown } } | undefined)?.default?.type;
  if (opts.implicit && typeof declared === 'string' && declared !== type) return undefined;
  return { plugin: check(mod, type, name, pkg), name, source: 'npm', module: pkg };
}

/** The built-in plugin `name` of `folder` (its index.ts or index.js), if there is one. */
export function builtinModule(folder: string, name: string): { path: string; label: string } | undefined {
  for (const file of ['index.ts', 'index.js']) {
    const path = `${PLUGINS_DIR}${folder}/${name}/${file}`;
    if (existsSync(path)) return { path, label: `plugins/${folder}/${name}/${file}` };
  }
  return undefined;
}

/** The built-in plugins of `type` (folders of plugins/ with an index module), sorted. */
export function builtinNames(type: Plugin['type']): string[] {
  let dirs: string[];
  try {
    dirs = readdirSync(`${PLUGINS_DIR}${FOLDER[type]}/`);
  } catch {
    return [];
  }
  return dirs.filter((d) => NAME.test(d) && builtinModule(FOLDER[type], d)).sort();
}

async function importOrThrow(url: string, label: string): Promise<unknown> {
  try {
    return await import(url);
  } catch (err) {
    throw new PluginError(`${label} failed to load: ${(err as Error).message}`, { cause: err });
  }
}

/** The default export of `mod` if it is a plugin of `type` for gw's version. @throws PluginError listing what it breaks. */
function check<T extends Plugin['type']>(mod: unknown, type: T, name: string, where: string): Extract<Plugin, { type: T }> {
  const plugin = (mod as { default?: unknown }).default;
  const problems: string[] = [];
  if (!plugin || typeof plugin !== 'object') problems.push('no default export object');
  else contractProblems(plugin as Fields, type, name, where, problems);
  if (problems.length) throw new PluginError(`${where} is not a gw ${type} plugin for '${name}': ${problems.join('; ')}`);
  const range = (plugin as Fields).gw;
  if (typeof range === 'string' && !semver.satisfies(GW_VERSION, range, { includePrerelease: true })) {
    throw new PluginError(`${where} supports gw ${range}, but this is gw ${GW_VERSION}; install a version of the plugin made for gw ${GW_VERSION}`);
  }
  return plugin as Extract<Plugin, { type: T }>;
}

/** A default export's fields, not yet checked. */
type Fields = Record<string, unknown> & { configSchema?: { safeParse?: unknown } };

function contractProblems(plugin: Fields, type: Plugin['type'], name: string, where: string, problems: string[]): void {
  if (plugin.type !== type) problems.push(`type must be '${type}' (got ${JSON.stringify(plugin.type)})`);
  if (type === 'format') formatProblems(plugin as Partial<FormatPlugin>, name, where, problems);
  else if (typeof plugin.name !== 'string' || !plugin.name) problems.push('name must be a non-empty string');
  // a store's section may hold nothing but `url`, a format may take no settings: their schema is optional
  const optional = (type === 'store' || type === 'format') && plugin.configSchema === undefined;
  if (!optional && typeof plugin.configSchema?.safeParse !== 'function') problems.push('configSchema must be a zod schema');
  if (type === 'store') {
    if (typeof plugin.open !== 'function') problems.push('open must be a function');
    if (typeof plugin.shared !== 'boolean') problems.push('shared must be true or false');
  } else if (typeof plugin.setup !== 'function') problems.push('setup must be a function');
  if (plugin.gw !== undefined && (typeof plugin.gw !== 'string' || semver.validRange(plugin.gw) === null))
    problems.push(`gw must be a semver range (got ${JSON.stringify(plugin.gw)})`);
  const routing = plugin.routing;
  if (type === 'provider' && routing !== undefined && (!Array.isArray(routing) || routing.some((s) => s !== 'max_retries' && s !== 'weight')))
    problems.push(`routing must list 'max_retries' and/or 'weight' (got ${JSON.stringify(routing)})`);
}

/** What a client format must declare beyond every plugin's fields: its protocol (`name` is the protocol's `id` here). */
function formatProblems(format: Partial<FormatPlugin>, id: string, where: string, problems: string[]): void {
  const protocol = format.protocol as Partial<FormatPlugin['protocol']> | undefined;
  if (typeof protocol !== 'object' || protocol === null) problems.push('protocol must be a protocol object');
  else {
    if (protocol.id !== id) problems.push(`protocol.id must be '${id}' (got ${JSON.stringify(protocol.id)})`);
    if (typeof protocol.errorBody !== 'function') problems.push('protocol.errorBody must be a function');
    if (!Array.isArray(protocol.keyFrom) || protocol.keyFrom.length === 0)
      problems.push(
        `protocol.keyFrom must list where a key comes from: 'bearer', a lower-case header name, '?<query parameter>' (got ${JSON.stringify(protocol.keyFrom)})`,
      );
    else
      for (const source of protocol.keyFrom) {
        const problem = keySourceProblem(source);
        if (problem) problems.push(`protocol.keyFrom: ${problem}`);
      }
  }
  // a third-party format's settings are its [formats.<id>] section, not a top-level one
  if (format.section !== undefined && !where.startsWith('plugins/')) problems.push(`section is for built-in formats (its settings are [formats.${id}])`);
}
