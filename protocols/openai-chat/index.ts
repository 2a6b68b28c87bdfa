/**
 * `gw/plugin/openai-chat`: the OpenAI chat completions protocol kit. Chat completions are
 * gw's common format, so the kit is small: the request schemas, the stream's framing for
 * clients, the model list, and the provider for any upstream that speaks it (OpenAI, Azure,
 * self-hosted servers, vendors' compatible endpoints), with hooks for a vendor's quirks.
 * The common-format types themselves are the kernel's (`ChatRequest`, `ChatCompletion`…
 * from `gw/plugin`).
 * @see https://platform.openai.com/docs/api-reference/chat
 */
export { chatErrorFrame, chatFrames, OPENAI_CHAT } from './chat-frames.ts';
export { chatContent } from './content.ts';
export { openaiChat } from './protocol.ts';
export { mayReportCacheWrites, withCacheWrites } from './map-usage.ts';
export { type ModelList, modelIds, modelList } from './models.ts';
export { chatMessageSchema, chatRequestSchema, embeddingsRequestSchema } from './schema.ts';

import type { ChatCompletionChunk } from 'gw/plugin';

// onChunk's chunk type of this protocol: taps that test `chunk.format === 'openai-chat'` get it typed
declare module 'gw/plugin' {
  interface ChunkTypes {
    /** A chat completion chunk. */
    'openai-chat': ChatCompletionChunk;
  }
}
