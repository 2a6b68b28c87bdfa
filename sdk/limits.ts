/**
 * Caps on the item counts of a request body, checked by each client format's zod schema
 * before anything walks or translates the body (exported by `gw/plugin`: a third-party
 * format caps its arrays as the built-ins do). Past one, the request is a 400 in the route's
 * own error shape, naming the field and the cap (`messages: at most 120000 messages per
 * request`). Every translation is linear, but a 32 MiB body of tiny items is millions of
 * objects to validate, convert and serialize again, on the event loop.
 *
 * Each cap is above the largest count a vendor documents, so gw never refuses a request an
 * upstream would take; they are listed in docs/design.md ("Decisions beyond the contract").
 * A cap holds in total where a request groups its items: every tool declaration across a
 * Gemini request's `tools` or a Responses request's namespaces ({@link cappedTotal}), and the
 * input items a Responses request carries once the conversation `previous_response_id`
 * continues is expanded into it (plugins/formats/openai-responses/history.ts). Arrays inside
 * one turn (content parts, tool calls, tool results) are not capped: the body size bounds
 * them, and translating them is linear.
 */
import { z } from 'zod';
import { withTotal } from '../lib/array-totals.ts';

/**
 * Turns of a conversation: `messages` (chat, Messages), `contents` (Gemini), `input` items
 * (Responses). Anthropic documents "a limit of 100,000 messages in a single request", the
 * only documented count (OpenAI's and Gemini's are bounded by tokens alone); 120,000 leaves
 * a fifth above it.
 * @see https://docs.anthropic.com/en/api/messages (messages)
 */
export const MAX_TURNS = 120_000;

/**
 * Tool declarations: `tools` (and a Responses namespace's `tools`, a Gemini tool's
 * `functionDeclarations`). OpenAI refuses more than 128 (`array_above_max_length`); Vertex
 * AI documents at most 64 function declarations; Anthropic's tool search takes catalogs of
 * up to 10,000 deferred tools, the largest. 20,000 is twice that.
 * @see https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/tool-search-tool
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Tool
 */
export const MAX_TOOLS = 20_000;

/**
 * Inputs of one embeddings request: `input` as an array (strings, token ids or token
 * arrays), Gemini's `batchEmbedContents` `requests`. OpenAI documents at most 2048 (and
 * 8192 tokens per input); 16,384 is eight times that, room for self-hosted servers that
 * batch more.
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 */
export const MAX_EMBEDDING_INPUTS = 16_384;

/** A zod array of `item` with at most `max` entries; past it the issue reads `at most <max> <what> per request`. */
export function capped<T extends z.ZodType>(item: T, max: number, what: string) {
  return z.array(item).max(max, `at most ${max} ${what} per request`);
}

/**
 * `capped(group, max, groups)`, and at most `max` in total of what the groups hold: a Gemini
 * tool's `functionDeclarations`, a Responses namespace's `tools` (`count(group)`: what one
 * group adds; it may see an item before the item was checked, so it reads it defensively). Capped per array alone, 25 groups of 20,000 made 500,000 tools in one request.
 * Past it the issue, on the array, reads `at most <max> <what> per request (<how>)` like
 * every cap, `how` saying how they were counted.
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
