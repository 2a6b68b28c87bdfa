/**
 * The host's error catalog: what the admin API (runtime providers and keys, reloads) and
 * the workers' metrics answer with. The kernel's entries are in core/error-codes.ts.
 */
import { defineError } from '../core/errors.ts';
import { clip } from '../lib/quote.ts';

// admin API
// a name in the URL is the client's: cut as every quoted value is (core/errors.ts clip)
export const PROVIDER_EXISTS = defineError<{ name: string; where: string }>('provider_exists', 409, (p) => `provider '${p.name}' already exists (${p.where})`, {
  param: 'name',
  verbatim: ['where'],
});
export const PROVIDER_NOT_FOUND = defineError<string>('provider_not_found', 404, (name) => `no provider '${clip(name)}'`);
export const KEY_EXISTS = defineError<string>('key_exists', 409, (name) => `key '${clip(name)}' already exists`, { param: 'name' });
export const KEY_NOT_FOUND = defineError<string>('key_not_found', 404, (name) => `no key '${clip(name)}'`);
/** A stored runtime record gw cannot load (`reason`: what is wrong with it, never a secret): only deleting it works. */
export const RECORD_UNREADABLE = defineError<{ what: 'provider' | 'key'; name: string; reason: string; action: string }>(
  'record_unreadable',
  409,
  (p) =>
    `${p.what} '${p.name}' is stored but its record cannot be loaded (${p.reason}); to ${p.action}, delete it (gw ${p.what === 'key' ? 'keys revoke' : 'providers delete'} ${p.name}) and create it again`,
  { verbatim: ['reason'] },
);
export const DEFINED_IN_FILE = defineError<{ what: 'provider' | 'key'; name: string; file: string }>(
  'defined_in_config_file',
  409,
  (p) =>
    `${p.what} '${p.name}' is defined in the config file ${p.file}; remove [${p.what === 'provider' ? 'providers' : 'keys'}.${p.name}] there, then reload (gw reload)`,
  { verbatim: ['file'] },
);
export const KEY_IN_FILE = defineError<{ name: string; file: string; action: string }>(
  'defined_in_config_file',
  409,
  (p) =>
    `key '${p.name}' is defined in the config file ${p.file}, which gives its secret and settings; to ${p.action}, edit [keys.${p.name}] there, then reload (gw reload)`,
  { verbatim: ['file'] },
);
export const INVALID_PROVIDER = defineError<string>('invalid_provider', 400, (m) => `invalid provider: ${m}`);
export const MODELS_REQUIRED = defineError<{ name: string; why: string }>(
  'models_required',
  400,
  (p) => `cannot create provider '${p.name}': ${p.why}; give models`,
  { param: 'models', verbatim: ['why'] },
);
export const CONFIG_INVALID = defineError<string>('config_invalid', 400, (m) => `reload refused, the running config is kept: ${m}`);
export const METRICS_UNAVAILABLE = defineError<string>('metrics_unavailable', 503, (detail) => detail);
