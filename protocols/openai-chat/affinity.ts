/**
 * Prompt-cache affinity of a chat completion request: `prompt_cache_key`, else `user`, else
 * the leading messages (the first system or developer message and the first user message).
 */
import { affinityId, affinityPrefix, leadingContent } from '../../lib/common/affinity.ts';

/** The conversation's affinity source (lib/common/affinity.ts), or undefined. */
export function chatAffinity(body: Record<string, unknown>): string | undefined {
  const ms = body.messages;
  return (
    affinityId('prompt_cache_key', body.prompt_cache_key) ??
    affinityId('user', body.user) ??
    affinityPrefix(leadingContent(ms, 'system') ?? leadingContent(ms, 'developer'), leadingContent(ms, 'user'))
  );
}
