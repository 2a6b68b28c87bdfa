/**
 * The client formats a config enables: every built-in one (plugins/formats/<id>/, always
 * on, in id order) and one per `[formats.<name>]` section, the npm package
 * `gw-plugin-<name>` (in the file's order). Each comes with its settings parsed by its
 * schema: a built-in one's from the top-level section it names (`[responses]`), a
 * third-party one's from its `[formats.<name>]`.
 */
import { readdirSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../../lib/config/error.ts';
import type { GatewayConfig } from '../../lib/config/schema.ts';
import type { FormatPlugin } from './contract.ts';
import { builtinModule, findPlugin, type LoadedPlugin, PLUGINS_DIR } from './loader.ts';

const NAME = /^[a-z0-9][a-z0-9_-]*$/;
const NO_SETTINGS = z.strictObject({});

/** A client format to set up: where it was found, and its settings parsed. */
export interface EnabledFormat {
  found: LoadedPlugin<FormatPlugin>;
  /** Its settings, parsed by its `configSchema` (undefined for a format without one). */
  config: unknown;
}

/** What of the config the formats read: `[formats]` and the built-ins' top-level sections. */
export type FormatsConfig = Pick<GatewayConfig, 'file' | 'formats'> & Record<string, unknown>;

/**
 * The built-in formats, then the third-party ones `[formats]` names. `file` is how errors
 * name the config file (default `config.file`).
 * @throws ConfigError naming `formats.<name>` for a built-in format given a section, a
 *   package that is not installed, or settings its schema rejects (the key path inside
 *   the section); PluginError for a package that fails to load, breaks the contract or is
 *   made for another gw version.
 */
export async function loadFormats(config: FormatsConfig, file: string = config.file): Promise<EnabledFormat[]> {
  const out: EnabledFormat[] = [];
  for (const id of builtinIds()) {
    const found = (await findPlugin('format', id))!;
    const f = found.plugin;
    const path = f.section ? [f.section] : [];
    out.push({ found, config: f.configSchema ? parse(f.configSchema, f.section ? (config[f.section] ?? {}) : {}, file, path) : undefined });
  }
  for (const [name, section] of Object.entries(config.formats ?? {})) {
    const path = ['formats', name];
    if (builtinModule('formats', name)) throw new ConfigError(file, path, `'${name}' is a built-in client format, always on: it takes no [formats] section`);
    const found = await findPlugin('format', name);
    if (!found) throw new ConfigError(file, path, `no built-in client format '${name}' and the npm package gw-plugin-${name} is not installed`);
    const schema = found.plugin.configSchema;
    const parsed = parse(schema ?? NO_SETTINGS, section, file, path);
    out.push({ found, config: schema ? parsed : undefined });
  }
  return out;
}

/** The ids of the built-in formats (folders of plugins/formats/ with an index module), sorted. */
function builtinIds(): string[] {
  let dirs: string[];
  try {
    dirs = readdirSync(`${PLUGINS_DIR}formats/`);
  } catch {
    return [];
  }
  return dirs.filter((d) => NAME.test(d) && builtinModule('formats', d)).sort();
}

/** `value` parsed by `schema`. @throws ConfigError naming each issue's key path under `path`. */
function parse(schema: z.ZodType, value: unknown, file: string, path: string[]): unknown {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw ConfigError.fromZod(file, path, parsed.error);
  return parsed.data;
}
