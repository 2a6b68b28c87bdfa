/**
 * A request's `input` as items, and items made fit for a Responses upstream other than the
 * one that produced them.
 * @see OpenAI API reference: Create a model response (input)
 */
import type { ResponsesInputItem } from './types.ts';

/** The request's `input` as items: a string is one user message; anything else but an array is none. */
export function inputItems(input: unknown): ResponsesInputItem[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return Array.isArray(input) ? (input as ResponsesInputItem[]) : [];
}

/**
 * A stored history for another native upstream: item ids dropped (that upstream would look them
 * up and fail), reasoning items without `encrypted_content` left out (it cannot take them back).
 */
export function portable(items: ResponsesInputItem[]): ResponsesInputItem[] {
  const out: ResponsesInputItem[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const { id: _id, ...rest } = item as { id?: unknown; [k: string]: unknown };
    if (rest.type === 'reasoning' && typeof rest.encrypted_content !== 'string') continue;
    out.push(rest as ResponsesInputItem);
  }
  return out;
}
