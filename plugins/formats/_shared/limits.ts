/**
 * The item caps, now in the SDK (`gw/plugin`, sdk/limits.ts), for the format schemas not yet
 * moved to their protocol kit (issue 24). Goes once openai-chat and openai-responses import
 * them from `gw/plugin`.
 */
export { capped, MAX_EMBEDDING_INPUTS, MAX_TOOLS, MAX_TURNS } from 'gw/plugin';
