/**
 * Finds plugins: `plugins/providers/<kind>/` or `plugins/extensions/<name>/` in this
 * checkout first, else the npm package `gw-plugin-<name>`. Checks the default export's
 * shape before anything runs it (fastify's plugin-utils idea).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from './contract.ts';

const PLUGINS_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url));
const NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** Where a plugin was found. */
export interface LoadedPlugin<P extends Plugin = Plugin> {
  plugin: P;
  source: 'builtin' | 'npm';
  module: string;
}

/** A plugin that cannot be used: missing, or a default export without the contract's fields. */
export class PluginError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'PluginError';
  }
}

/**
 * Loads the plugin `name` of `type`; undefined when neither a built-in folder nor
 * `gw-plugin-<name>` exists.
 * @throws PluginError when the module exists but fails to import or breaks the contract.
 */
export async function findPlugin<T extends Plugin['type']>(type: T, name: string): Promise<LoadedPlugin<Extract<Plugin, { type: T }>> | undefined> {
  if (!NAME.test(name)) return undefined;
  const folder = type === 'provider' ? 'providers' : 'extensions';
  for (const file of ['index.ts', 'index.js']) {
    const path = `${PLUGINS_DIR}${folder}/${name}/${file}`;
    if (existsSync(path)) {
      const mod = await importOrThrow(pathToFileURL(path).href, `plugins/${folder}/${name}/${file}`);
      return { plugin: check(mod, type, name, `plugins/${folder}/${name}`), source: 'builtin', module: path };
    }
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
  return { plugin: check(mod, type, name, pkg), source: 'npm', module: pkg };
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
    if (typeof p.name !== 'string' || !p.name) problems.push('name must be a non-empty string');
    if (!p.configSchema || typeof (p.configSchema as { safeParse?: unknown }).safeParse !== 'function') problems.push('configSchema must be a zod schema');
    if (typeof p.setup !== 'function') problems.push('setup must be a function');
  }
  if (problems.length) throw new PluginError(`${where} is not a gw ${type} plugin for '${name}': ${problems.join('; ')}`);
  return p as Extract<Plugin, { type: T }>;
}
