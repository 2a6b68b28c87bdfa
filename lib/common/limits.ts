/**
 * Caps on a body's item counts, checked by each format's schema before anything walks it (a 400
 * naming field and cap), each above what vendors document (docs/design.md "Decisions beyond the contract").
 */
import { z } from 'zod';
import { withTotal } from '../array-totals.ts';

/**
 * Turns of a conversation (`messages`, `contents`, `input` items): Anthropic's 100,000 and a fifth.
 * @see Anthropic API: Messages (messages)
 */
export const MAX_TURNS = 120_000;

/**
 * Tool declarations: twice Anthropic's tool search catalog of 10,000 (OpenAI takes 128, Vertex AI 64).
 * @see Anthropic docs: Tool search tool
 */
export const MAX_TOOLS = 20_000;

/**
 * Inputs of one embeddings request: eight times OpenAI's 2048, for self-hosted servers that batch more.
 * @see OpenAI API reference: Create embeddings
 */
export const MAX_EMBEDDING_INPUTS = 16_384;

/** A zod array of `item` with at most `max` entries; past it the issue reads `at most <max> <what> per request`. */
export function capped<T extends z.ZodType>(item: T, max: number, what: string) {
  return z.array(item).max(max, `at most ${max} ${what} per request`);
}

/**
 * `capped`, and at most `max` in total of what the groups hold (`count`: one group's share, read
 * defensively: the item may be unchecked yet); else 25 groups of 20,000 were 500,000 tools.
 */
export function cappedTotal<T extends z.ZodType>(group: T, max: number, groups: string, what: string, how: string, count: (group: unknown) => number) {
  return withTotal(capped(group, max, groups), (list) => {
    let total = 0;
    for (const g of list) {
      total += count(g);
      if (total > max) return `at most ${max} ${what} per request (${how})`;
    }
    return undefined;
  });
}

/** What a group adds to a {@link cappedTotal} count: the length of `list` when it is an array, else 1 (an item that is no group). */
export function lengthOr1(list: unknown): number {
  return Array.isArray(list) ? list.length : 1;
}
