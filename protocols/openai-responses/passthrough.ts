/**
 * Native Responses passthrough to an upstream that speaks the Responses API (OpenAI, Azure
 * OpenAI's v1 API, a self-defined OpenAI-compatible section with `responses = "native"`):
 * the provider method a kind puts at `native['openai-responses']`. The client's body bytes
 * go upstream unchanged (when gw did not have to change them: an alias, a continued
 * conversation); the answer comes back as bytes or SSE events, never re-encoded. The
 * upstream's built-in tools (web_search, file_search, …) therefore work as they do there.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
import type { NativeCall, UpstreamClient } from 'gw/plugin';
import type { SseEvent } from 'gw/plugin/format';

/** Events that end a Responses stream for good. */
export function isTerminal(type: string | undefined): boolean {
  return type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed';
}

/**
 * The native call of a provider whose Responses endpoint is `url` (e.g.
 * `https://api.openai.com/v1/responses`), reached with `http` and the kind's auth `headers`.
 * One operation: `responses` (POST, the default); stored responses are served by gw itself.
 */
export function responsesPassthrough(http: UpstreamClient, url: string, headers: Record<string, string>): NativeCall {
  const json = { ...headers, 'content-type': 'application/json' };
  const sse = { ...json, accept: 'text/event-stream' };
  const complete = (ev: SseEvent) => isTerminal(ev.event ?? typeOf(ev.data));
  return async function responses(body, call) {
    const stream = body.stream === true;
    const res = await http.send(url, { headers: stream ? sse : json, body: call.rawBody ?? body, signal: call.signal, log: call.log });
    if (stream) return { type: 'stream', events: await http.events(res, url, call.signal, complete) };
    const raw = await http.text(res, url, call.signal);
    return { type: 'json', status: res.statusCode, raw, contentType: String(res.headers['content-type'] ?? 'application/json') };
  };
}

/**
 * An event's `type` read from its data without parsing it, for upstreams that send no
 * `event:` line: OpenAI serializes `type` first (`{"type":"response.created",…`).
 */
export function typeOf(data: string): string | undefined {
  if (!data.startsWith('{"type":"')) return undefined;
  const end = data.indexOf('"', 9);
  return end > 9 ? data.slice(9, end) : undefined;
}
