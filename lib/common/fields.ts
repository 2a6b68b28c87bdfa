/** A field of a client's body read by a translator, with the one 400 for a wrong type (the path named). */
import { failField } from '../../core/error-codes.ts';

/** `o[key]` as a string, else a 400 naming `path.key`. */
export function stringField(o: Record<string, unknown>, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== 'string') failField(`${path}.${key}`, `${key} must be a string`);
  return v;
}
