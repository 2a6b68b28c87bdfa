/** A common request's `stop` as the list Messages and Gemini take. */
import type { ChatRequest } from './chat.ts';
import { badRequest } from '../../core/error-codes.ts';

/** `stop` as a list, undefined for none. @throws 400 naming `stop` when it is no string or list of strings. */
export function stopSequences(stop: ChatRequest['stop']): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  if (!Array.isArray(list) || list.some((s) => typeof s !== 'string')) throw badRequest('stop must be a string or an array of strings', 'stop');
  return list.length > 0 ? list : undefined;
}
