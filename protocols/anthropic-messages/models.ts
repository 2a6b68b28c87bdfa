/**
 * Anthropic's model list shapes, as gw answers Anthropic clients listing models through it.
 * @see Anthropic API: List Models
 */
import type { ModelEntry } from '../../lib/model-listing.ts';

const EPOCH = '1970-01-01T00:00:00Z';

/** One model, Anthropic's shape. */
export function messagesModel(m: ModelEntry): Record<string, unknown> {
  return { type: 'model', id: m.id, display_name: m.id, created_at: EPOCH };
}

/** One page holding every model. */
export function messagesModelPage(models: readonly ModelEntry[]): Record<string, unknown> {
  const data = models.map(messagesModel);
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
