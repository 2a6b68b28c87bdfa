/**
 * `gw/plugin/openai-chat`: the OpenAI chat completions protocol, gw's common format, as one
 * object (`openaiChat`: its client side, content reader and vendor side, protocol.ts), and the
 * usage helpers of vendors that report cache writes their own way. The common format's types
 * themselves are `gw/plugin`'s (`ChatRequest`, `ChatCompletion`…).
 * @see OpenAI API reference: Chat Completions
 */
export { openaiChat } from './protocol.ts';
export { mayReportCacheWrites, withCacheWrites } from './map-usage.ts';

import type { ChatCompletionChunk } from 'gw/plugin';

// onChunk's chunk type of this protocol: taps that test `chunk.format === 'openai-chat'` get it typed
declare module 'gw/plugin' {
  interface ChunkTypes {
    /** A chat completion chunk. */
    'openai-chat': ChatCompletionChunk;
  }
}
