/**
 * The catalog plugins see as `errors` (gw/plugin): the kernel's, the upstream client's,
 * authentication's, the breaker's, the store's and the usage series' entries.
 */
export * from '../core/error-codes.ts';
export * from '../lib/http/errors.ts';
export { UPSTREAM_AUTH_FAILED } from '../lib/http/client.ts';
export {
  ADMIN_DISABLED,
  ADMIN_REQUIRED,
  ADMIN_TOKEN_AS_KEY,
  INVALID_ADMIN_TOKEN,
  KEY_EXPIRED,
  MISSING_ADMIN_TOKEN,
  MISSING_KEY,
  UNKNOWN_KEY,
} from '../lib/http/auth.ts';
export { CIRCUIT_OPEN } from '../lib/resilience/breaker.ts';
export { STORE_UNAVAILABLE } from '../lib/store/types.ts';
export { INVALID_QUERY, SERIES_DISABLED } from './series.ts';
