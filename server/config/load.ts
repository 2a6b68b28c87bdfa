/**
 * Reading the config file: TOML (smol-toml) → `${VAR}` expansion → zod validation.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { isAliasPattern } from '../../lib/alias-patterns.ts';
import { ConfigError } from '../../lib/config/error.ts';
import { rolledOver } from '../../lib/dates.ts';
import { builtinModule } from '../../core/plugins/loader.ts';
import { expandEnv } from './expand.ts';
import { PROTO_NAME, protoKeyPath } from '../../lib/own.ts';
import { gatewayConfigSchema, type GatewayConfig } from '../../lib/config/schema.ts';

/**
 * Loads and validates a config file.
 * @throws ConfigError (file, key path, what was expected) for unreadable, malformed or invalid files.
 */
export async function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Promise<GatewayConfig> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [], `cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parseConfig(text, file, path, env);
}

/** Parses config text; `file` is the name used in errors, `path` the absolute path. */
export function parseConfig(text: string, file: string, path: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    if (err instanceof TomlError) throw new ConfigError(file, [], `TOML syntax error at line ${err.line}, column ${err.column}: ${err.message.split('\n')[0]}`);
    throw err;
  }
  const rolled = rolledOver(raw, text);
  if (rolled) throw new ConfigError(file, rolled, 'not a calendar date: that day does not exist in its month');
  // zod would drop a `[keys.__proto__]`, an alias or a tag named so without a word
  const proto = protoKeyPath(raw);
  if (proto) throw new ConfigError(file, proto, PROTO_NAME);
  expandEnv(raw, file, env);
  const parsed = gatewayConfigSchema.safeParse(raw);
  if (!parsed.success) throw ConfigError.fromZod(file, [], parsed.error, extensionHint);
  const cfg = parsed.data;
  for (const [alias, target] of Object.entries(cfg.aliases)) {
    if (alias === target) throw new ConfigError(file, ['aliases', alias], 'an alias cannot point to itself');
    if (isAliasPattern(target)) throw new ConfigError(file, ['aliases', alias], `expected a model id as the target, not the pattern '${target}'`);
  }
  return { ...cfg, file: path, dir: dirname(path) };
}

/** For unknown top-level keys named like a built-in extension (`[alerts]`, `[otel]`): where their settings go. */
function extensionHint(keys: string[]): string {
  const named = keys.filter((k) => builtinModule('extensions', k) !== undefined);
  return named.length ? ` (an extension's settings go under ${named.map((k) => `[extensions.${k}]`).join(', ')})` : '';
}
