/**
 * The error catalog plugins see as `errors` (gw/plugin): the kernel's entries, the upstream
 * client's, authentication's, the circuit breaker's and the store's, each defined beside
 * the code that throws it.
 */
export * from '../core/error-codes.ts';
// the upstream client's file is a catalog alone (with upstreamError): a new entry needs no line here
export * from '../lib/http/errors.ts';
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
