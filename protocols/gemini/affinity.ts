/**
 * Prompt-cache affinity of a generateContent request. The Gemini API has no conversation or
 * user id, so the leading contents name it: `systemInstruction` (a Content or a string) and
 * the first user turn (role `user`, or none).
 */
import { affinityPrefix, leadingContent } from '../../lib/common/affinity.ts';

/** The conversation's affinity source (lib/common/affinity.ts), or undefined. */
export function geminiAffinity(body: Record<string, unknown>): string | undefined {
  const sys = body.systemInstruction as { parts?: unknown } | string | null | undefined;
  return affinityPrefix(typeof sys === 'string' ? sys : sys?.parts, leadingContent(body.contents, 'user', 'parts', true));
}
