/**
 * Field checks shared by the request translators: each failure is a 400 GatewayError whose
 * `param` (and message) names the field path, e.g. `input[3].content[0].image_url`.
 */
import { badRequest } from 'gw/plugin';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Throws a 400 naming `param`; `got` (the value at fault) is quoted to the client only (core/error-codes.ts `badRequest`). */
export function fail(message: string, param: string, got?: string): never {
  throw badRequest(`${param}: ${message}`, param, got);
}

/** `o[key]` as a string, else a 400 naming `path.key`. */
export function stringField(o: Obj, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== 'string') fail(`${key} must be a string`, `${path}.${key}`);
  return v;
}
