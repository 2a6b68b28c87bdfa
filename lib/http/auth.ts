/** Who is calling: a gateway key where the route reads one (key-sources.ts), or the admin token; one Map.get. */
import type { Context } from 'koa';
import { defineError } from '../../core/errors.ts';
import { rfc3339 } from '../key-settings.ts';
import { bearer, type KeyInfo, type KeyTable, tokenEquals } from '../keys.ts';
import type { KeyReader } from './key-sources.ts';

// the 401s and 403s of gateway keys and the admin token
export const MISSING_KEY = defineError<string>('missing_api_key', 401, (how) => `missing gateway key: send ${how}`);
export const UNKNOWN_KEY = defineError('invalid_api_key', 401, 'unknown gateway key');
export const ADMIN_TOKEN_AS_KEY = defineError('invalid_api_key', 401, 'the admin token is not a gateway key; use a key from [keys] or gw keys create');
export const MISSING_ADMIN_TOKEN = defineError('missing_api_key', 401, 'missing admin token: send Authorization: Bearer <admin_token>');
export const INVALID_ADMIN_TOKEN = defineError('invalid_api_key', 401, 'invalid admin token');
export const ADMIN_DISABLED = defineError('invalid_api_key', 401, 'admin routes are disabled: no admin_token in the config');
export const ADMIN_REQUIRED = defineError('admin_required', 403, 'a gateway key cannot call admin routes; use the admin token');
/** A virtual key past its `expires_at`. */
export const KEY_EXPIRED = defineError<{ name: string; at: string }>('key_expired', 401, (p) => `gateway key '${p.name}' expired at ${p.at}`);

/**
 * The key of a request on a route reading keys through `reader`; undefined when gw runs open.
 * @throws GatewayError 401 when no key is given, it is unknown or the admin token, or it expired.
 */
export function authenticate(
  ctx: Context,
  keys: KeyTable,
  adminToken: string | undefined,
  reader: KeyReader,
  clock: () => number = Date.now,
): KeyInfo | undefined {
  if (keys.open) {
    reader.dropQueryKeys(ctx);
    return undefined;
  }
  const token = reader.read(ctx);
  if (!token) throw MISSING_KEY(reader.hint);
  const key = keys.lookup(token, clock);
  if (key) {
    if (key.expiresAt !== undefined && clock() >= key.expiresAt) throw KEY_EXPIRED({ name: key.name, at: rfc3339(key.expiresAt) });
    return key;
  }
  throw adminToken !== undefined && tokenEquals(token, adminToken) ? ADMIN_TOKEN_AS_KEY() : UNKNOWN_KEY();
}

/**
 * Admin routes: the admin token as a bearer token.
 * @throws GatewayError 401 (missing, wrong, or no admin_token configured), 403 for a gateway key.
 */
export function requireAdmin(ctx: Context, keys: KeyTable, adminToken: string | undefined): void {
  const token = bearer(ctx.get('authorization'));
  if (!token) throw MISSING_ADMIN_TOKEN();
  if (adminToken !== undefined && tokenEquals(token, adminToken)) return;
  if (keys.lookup(token)) throw ADMIN_REQUIRED();
  throw adminToken === undefined ? ADMIN_DISABLED() : INVALID_ADMIN_TOKEN();
}
