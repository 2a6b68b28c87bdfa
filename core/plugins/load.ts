/**
 * The one way a config section becomes a plugin, whatever its kind: resolve and check
 * (loader.ts) → parse its settings → set up, each failing with the same line for every kind
 * (docs/plugins.md "Loading").
 */
import { z } from 'zod';
import { ConfigError } from '../../lib/config/error.ts';
import { UserError } from '../../lib/user-error.ts';
import type { Plugin } from './contract.ts';
import { findPlugin, type LoadedPlugin, PluginError } from './loader.ts';

/** How the missing line names each type of plugin. */
const KIND: Record<Plugin['type'], string> = { provider: 'provider kind', format: 'client format', extension: 'extension', store: 'store' };

/** What a plugin without a `configSchema` accepts: nothing. */
const NO_SETTINGS = z.strictObject({});

type PluginOf<T extends Plugin['type']> = Extract<Plugin, { type: T }>;

/** A config section that names a plugin. */
export interface PluginSection<T extends Plugin['type']> {
  readonly type: T;
  /** A provider's kind, an extension's or format's section name, the store url's scheme. */
  readonly name: string;
  /** The config file and the section's key path (`['providers', 'eu']`), for errors; `nameAt`: where the name was given. */
  readonly file: string;
  readonly path: readonly string[];
  readonly nameAt?: readonly string[];
  /** The section without what the host reads itself. */
  readonly settings: unknown;
  /** Names tried when nothing has `name` (`rediss` → `redis`, a provider with `base_url` → `openai`). */
  readonly fallbacks?: readonly string[];
  /** A provider section without `kind`: a package of another type is not it. */
  readonly implicit?: boolean;
  /** Said after the missing line (what to do instead). */
  readonly hint?: string;
}

/** A plugin found, checked, and its settings parsed: ready to set up. */
export interface LoadedSection<T extends Plugin['type']> {
  readonly found: LoadedPlugin<PluginOf<T>>;
  /** The settings parsed by the plugin's `configSchema` (`{}` for a plugin without one). */
  readonly config: unknown;
}

/**
 * Resolves, checks and parses the plugin a section names. @throws ConfigError naming the section
 * (no such plugin) or the setting at fault; PluginError (it fails to load, breaks the contract, wrong gw).
 */
export async function loadPlugin<T extends Plugin['type']>(section: PluginSection<T>): Promise<LoadedSection<T>> {
  let found = await findPlugin(section.type, section.name, { implicit: section.implicit });
  for (const name of section.fallbacks ?? []) found ??= await findPlugin(section.type, name);
  if (!found) {
    const missing = `no built-in ${KIND[section.type]} '${section.name}' and the npm package gw-plugin-${section.name} is not installed`;
    throw new ConfigError(section.file, [...(section.nameAt ?? section.path)], section.hint ? `${missing}; ${section.hint}` : missing);
  }
  const schema: z.ZodType = (found.plugin as { configSchema?: z.ZodType }).configSchema ?? NO_SETTINGS;
  const parsed = schema.safeParse(section.settings ?? {});
  if (!parsed.success) throw ConfigError.fromZod(section.file, [...section.path], parsed.error);
  return { found, config: parsed.data };
}

/**
 * Runs the setup (a store's `open`) of the plugin configured as `name`: what an npm plugin throws
 * becomes one PluginError line (`cause`: the original); a UserError, or a built-in's bug, passes as is.
 */
export async function setUp<T>(found: LoadedPlugin, name: string, setup: () => T | Promise<T>): Promise<T> {
  try {
    return await setup();
  } catch (err) {
    if (found.source !== 'npm' || err instanceof UserError) throw err;
    const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    const line = reason.split('\n', 1)[0]!.trim();
    throw new PluginError(`${found.plugin.type} '${name}' from the npm package ${found.module} failed in setup: ${line}`, { cause: err });
  }
}
