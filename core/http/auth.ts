/**
 * Who is calling: a gateway key from where the route accepts it (docs/design.md "Routes"), or
 * the admin token on admin routes. Lookups are one Map.get on the hot path (keys.ts).
 */
import type { Context } from 'koa';
import type { KeyInfo } from '../context.ts';
import {
  ADMIN_DISABLED,
  ADMIN_REQUIRED,
  ADMIN_TOKEN_AS_KEY,
  INVALID_ADMIN_TOKEN,
  KEY_EXPIRED,
  MISSING_ADMIN_TOKEN,
  MISSING_KEY,
  UNKNOWN_KEY,
} from '../error-codes.ts';
import { rfc3339 } from '../key-settings.ts';
import { bearer, tokenEquals } from '../keys.ts';
import type { KeySource } from '../routes/registry.ts';
import type { Snapshot } from '../runtime/snapshot.ts';

const HOW: Record<KeySource, string> = {
  bearer: 'Authorization: Bearer <key>',
  'x-api-key': 'x-api-key: <key>',
  'x-goog-api-key': 'x-goog-api-key: <key>',
  'query-key': '?key=<key>',
};

/**
 * The key of a request on a route taking keys from `sources`; undefined when the gateway
 * runs open. A key given as `?key=` is removed from the query, so nothing forwards it.
 * `clock` (epoch ms) is read only for keys with `expires_at` and rotated keys' old secrets.
 * @throws GatewayError 401 when no key is given, it is unknown (the admin token is not a
 *   key), or it expired (`key_expired`).
 */
export function authenticate(ctx: Context, snap: Snapshot, sources: readonly KeySource[], clock: () => number = Date.now): KeyInfo | undefined {
  const keys = snap.keys;
  if (keys.open) {
    if (sources.includes('query-key')) dropQueryKey(ctx);
    return undefined;
  }
  const token = presented(ctx, sources);
  if (!token) throw MISSING_KEY(sources.map((s) => HOW[s]).join(' or '));
  const key = keys.lookup(token, clock);
  if (key) {
    if (key.expiresAt !== undefined && clock() >= key.expiresAt) throw KEY_EXPIRED({ name: key.name, at: rfc3339(key.expiresAt) });
    return key;
  }
  const admin = snap.config.admin_token;
  throw admin !== undefined && tokenEquals(token, admin) ? ADMIN_TOKEN_AS_KEY() : UNKNOWN_KEY();
}

/**
 * Admin routes: the admin token as a bearer token.
 * @throws GatewayError 401 (missing, wrong, or no admin_token configured), 403 for a gateway key.
 */
export function requireAdmin(ctx: Context, snap: Snapshot): void {
  const token = bearer(ctx.get('authorization'));
  if (!token) throw MISSING_ADMIN_TOKEN();
  const expected = snap.config.admin_token;
  if (expected !== undefined && tokenEquals(token, expected)) return;
  if (snap.keys.lookup(token)) throw ADMIN_REQUIRED();
  throw expected === undefined ? ADMIN_DISABLED() : INVALID_ADMIN_TOKEN();
}

/** The token presented in the first of `sources` that has one. */
function presented(ctx: Context, sources: readonly KeySource[]): string | undefined {
  for (const s of sources) {
    let v: string | undefined;
    if (s === 'bearer') v = bearer(ctx.get('authorization'));
    else if (s === 'query-key') v = dropQueryKey(ctx);
    else v = ctx.get(s) || undefined;
    if (v) return v;
  }
  return undefined;
}

/** Removes `key` from the query string (it must never be forwarded or logged); returns its value. */
function dropQueryKey(ctx: Context): string | undefined {
  if (!ctx.querystring.includes('key=')) return undefined;
  const q = new URLSearchParams(ctx.querystring);
  const v = q.get('key') ?? undefined;
  if (v === undefined) return undefined;
  q.delete('key');
  ctx.querystring = q.toString();
  return v;
}
