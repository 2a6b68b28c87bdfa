/**
 * A common-format request's `stop` as the list the vendor protocols that take a list want
 * (Messages' `stop_sequences`, Gemini's `generationConfig.stopSequences`).
 */
import type { ChatRequest } from '../lib/common/chat.ts';
import { badRequest } from '../core/error-codes.ts';

/**
 * `stop` (a string or an array of strings) → a list, or undefined for none or an empty list.
 * @throws 400 naming `stop` when it is neither.
 */
export function stopSequences(stop: ChatRequest['stop']): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  if (!Array.isArray(list) || list.some((s) => typeof s !== 'string')) throw badRequest('stop must be a string or an array of strings', 'stop');
  return list.length > 0 ? list : undefined;
}
