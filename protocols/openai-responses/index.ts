/**
 * `gw/plugin/openai-responses`: the OpenAI Responses protocol as one object (`openaiResponses`,
 * protocol.ts: its stateless client side, content reader and vendor side), its wire types, and
 * what a format that keeps Responses state needs beside it: the per-request turn its generate
 * declaration takes, input items read and made portable, the route-missing switch of a
 * provider whose upstream may have no Responses API.
 * @see OpenAI API reference: Responses
 */
export { openaiResponses } from './protocol.ts';
export type { ResponsesTranslation, ResponsesTurn } from './generate.ts';
export { inputItems, portable } from './items.ts';
export { switchOnRouteMissing } from './route-missing.ts';
export type * from './types.ts';

import type { ResponsesStreamEvent } from './types.ts';

// onChunk's chunk type of this protocol: taps that test `chunk.format === 'openai-responses'` get it typed
declare module 'gw/plugin' {
  interface ChunkTypes {
    /** A Responses stream event (passthrough: parsed from the upstream's data). */
    'openai-responses': ResponsesStreamEvent;
  }
}
