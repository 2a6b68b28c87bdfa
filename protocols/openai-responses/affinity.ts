/**
 * Prompt-cache affinity of a Responses request: `prompt_cache_key`, else `user`, else the
 * leading input (`instructions` and the first user message; a string input is that message).
 * A turn continuing `previous_response_id` without either id carries only its new input,
 * which names no conversation: the group's strategy picks its member.
 */
import { affinityId, affinityPrefix, leadingContent } from '../../lib/common/affinity.ts';

/** The conversation's affinity source (lib/common/affinity.ts), or undefined. */
export function responsesAffinity(body: Record<string, unknown>): string | undefined {
  const explicit = affinityId('prompt_cache_key', body.prompt_cache_key) ?? affinityId('user', body.user);
  if (explicit !== undefined) return explicit;
  if (typeof body.previous_response_id === 'string' && body.previous_response_id !== '') return undefined;
  const input = body.input;
  return affinityPrefix(body.instructions, typeof input === 'string' ? input : leadingContent(input, 'user'));
}
