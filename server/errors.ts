/**
 * The host's error catalog: what the admin API (runtime providers and keys, reloads) and
 * the workers' metrics answer with. The kernel's entries are in core/error-codes.ts.
 */
import { defineError } from '../core/errors.ts';

// ── admin API ───────────────────────────────────────────────────────────────────────
export const PROVIDER_EXISTS = defineError<{ name: string; where: string }>('provider_exists', 409, (p) => `provider '${p.name}' already exists (${p.where})`, {
  param: 'name',
});
export const PROVIDER_NOT_FOUND = defineError<string>('provider_not_found', 404, (name) => `no provider '${name}'`);
export const KEY_EXISTS = defineError<string>('key_exists', 409, (name) => `key '${name}' already exists`, { param: 'name' });
export const KEY_NOT_FOUND = defineError<string>('key_not_found', 404, (name) => `no key '${name}'`);
export const DEFINED_IN_FILE = defineError<{ what: 'provider' | 'key'; name: string; file: string }>(
  'defined_in_config_file',
  409,
  (p) =>
    `${p.what} '${p.name}' is defined in the config file ${p.file}; remove [${p.what === 'provider' ? 'providers' : 'keys'}.${p.name}] there, then reload (gw reload)`,
);
export const KEY_IN_FILE = defineError<{ name: string; file: string; action: string }>(
  'defined_in_config_file',
  409,
  (p) =>
    `key '${p.name}' is defined in the config file ${p.file}, which gives its secret and settings; to ${p.action}, edit [keys.${p.name}] there, then reload (gw reload)`,
);
export const INVALID_PROVIDER = defineError<string>('invalid_provider', 400, (m) => `invalid provider: ${m}`);
export const MODELS_REQUIRED = defineError<{ name: string; why: string }>(
  'models_required',
  400,
  (p) => `cannot create provider '${p.name}': ${p.why}; give models`,
  { param: 'models' },
);
export const CONFIG_INVALID = defineError<string>('config_invalid', 400, (m) => `reload refused, the running config is kept: ${m}`);
export const METRICS_UNAVAILABLE = defineError<string>('metrics_unavailable', 503, (detail) => detail);
