/**
 * Prompt-cache affinity of a Messages request: `metadata.user_id` (Claude Code sends one per
 * session), else the leading messages (`system` and the first user message).
 */
import { affinityId, affinityPrefix, leadingContent } from '../../lib/common/affinity.ts';

/** The conversation's affinity source (lib/common/affinity.ts), or undefined. */
export function messagesAffinity(body: Record<string, unknown>): string | undefined {
  const meta = body.metadata as { user_id?: unknown } | null | undefined;
  return affinityId('metadata.user_id', meta?.user_id) ?? affinityPrefix(body.system, leadingContent(body.messages, 'user'));
}
