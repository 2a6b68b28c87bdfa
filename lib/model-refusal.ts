/**
 * Whether a request was refused for its model: then its model is the client's own string,
 * any of countless names, and never a metric label or a counter's key.
 */
import { MODEL_NOT_ALLOWED, MODEL_NOT_FOUND } from '../core/error-codes.ts';

/**
 * True when `err` refused the request for its model: 404 `model_not_found` (no provider
 * serves it) or 403 `model_not_allowed` (its key may not call it). Metrics and alerts count
 * such requests under one bucket.
 */
export function isModelRefusal(err: unknown): boolean {
  return MODEL_NOT_FOUND.is(err) || MODEL_NOT_ALLOWED.is(err);
}
