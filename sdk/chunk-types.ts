/**
 * The chunk types of the built-in protocols, as onChunk taps see them (`chunk.format ===
 * 'openai-chat'`, `'openai-responses'`, `'anthropic-messages'`, `'gemini'`): entries of the hooks' ChunkTypes,
 * declared here so that every plugin importing `gw/plugin` sees them typed. The SDK
 * augments the hooks module directly: an augmentation of `gw/plugin` from a file the SDK
 * itself imports would be merged before the SDK's own exports are, and be lost (a
 * third-party format's augmentation of `gw/plugin` comes after, and merges).
 */
import type { ChatCompletionChunk } from '../lib/common/chat.ts';
import type { MessagesStreamEvent } from '../protocols/anthropic-messages/types.ts';
import type { GenerateContentResponse } from '../protocols/gemini/types.ts';
import type { ResponsesStreamEvent } from '../protocols/openai-responses/types.ts';

declare module '../core/hooks.ts' {
  interface ChunkTypes {
    /** A chat completion chunk. */
    'openai-chat': ChatCompletionChunk;
    /** A Responses stream event (passthrough: parsed from the upstream's data). */
    'openai-responses': ResponsesStreamEvent;
    /** A Messages stream event (passthrough: parsed from the upstream's data). */
    'anthropic-messages': MessagesStreamEvent;
    /** A Gemini stream response (passthrough: parsed from the upstream's event data). */
    gemini: GenerateContentResponse;
  }
}
