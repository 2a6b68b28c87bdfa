/**
 * `gw/plugin/anthropic-messages`: the Anthropic Messages protocol as one object
 * (`anthropicMessages`, protocol.ts: its client side, content reader and vendor side), its wire
 * types, and the setting of a vendor with a Messages origin of its own. README.md lists the
 * files and every translation decision.
 * @see Anthropic API: Messages
 */

// the wire shapes
export type {
  MessagesContentBlock,
  MessagesErrorBody,
  MessagesMessage,
  MessagesRequest,
  MessagesResponse,
  MessagesStreamEvent,
  MessagesTool,
  MessagesUsage,
  StopReason,
} from './types.ts';

// the protocol object (protocol.ts): client side, content reader, vendor side
export { anthropicMessages } from './protocol.ts';
// the setting of a vendor that also serves Messages at an origin of its own
export { messagesBaseUrlSchema } from './origin-schema.ts';

import type { MessagesStreamEvent } from './types.ts';

// onChunk's chunk type of this protocol: taps that test `chunk.format === 'anthropic-messages'` get it typed
declare module 'gw/plugin' {
  interface ChunkTypes {
    /** A Messages stream event (passthrough: parsed from the upstream's data). */
    'anthropic-messages': MessagesStreamEvent;
  }
}
