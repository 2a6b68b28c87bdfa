/**
 * Calling an upstream that speaks the Responses API (OpenAI, Azure OpenAI's v1 API, a
 * self-defined section with `responses = "native"`): only ever passed through, for its own
 * clients, bytes and events unchanged (so the upstream's built-in tools work as they do there).
 * `origin` is the API's base (`https://api.openai.com/v1`).
 * @see OpenAI API reference: Create a model response
 */
import type { SseEvent } from '../../lib/provider.ts';
import type { VendorSide } from '../../lib/vendor/side.ts';
import { isTerminal, typeOf } from './passthrough.ts';

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });
const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json', accept: 'text/event-stream' });
const complete = (ev: SseEvent) => isTerminal(ev.event ?? typeOf(ev.data));

/** The Responses API's vendor side: one native operation, POST `{origin}/responses`. */
export const responsesVendor = {
  endpoints: () => ({}),
  native(_op, body, _call, origin) {
    const stream = body.stream === true;
    return { url: `${origin.replace(/\/+$/, '')}/responses`, stream, headers: stream ? SSE_HEADERS : JSON_HEADERS, isTerminal: complete };
  },
} satisfies VendorSide;
