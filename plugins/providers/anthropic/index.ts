/**
 * The `anthropic` kind. /v1/chat/completions is translated to the Messages API with the
 * pure functions of this folder (README.md lists every decision); /v1/messages is passed
 * through natively. No embeddings (the core answers 400). Models are discovered from
 * `GET {origin}/v1/models`, following its pages.
 * Auth: `x-api-key`; every call carries `anthropic-version` (the client's, else 2023-06-01).
 * `base_url` is the origin without `/v1` (default https://api.anthropic.com).
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/api/models-list
 */
import type { Logger } from 'pino';
import { GatewayError } from '../../../core/errors.ts';
import type { ChatRequest } from '../../../core/format/chat.ts';
import type { MessagesResponse } from '../../../core/format/messages.ts';
import { sseEvents } from '../../../core/http/sse-parse.ts';
import { callUpstream, parseUpstreamJson, readBody, releaseBody, snippet, type UpstreamResponse } from '../../../core/http/upstream.ts';
import { defineProvider } from '../../../core/plugins/contract.ts';
import { providerBaseSchema } from '../../../core/plugins/provider-schema.ts';
import type { CallContext, ChatResult, Provider, StreamItem } from '../../../core/provider.ts';
import { createMessagesPassthrough, failMessages, messagesHeaders, messagesOrigin } from '../_shared/messages-origin.ts';
import { fromMessagesResponse } from './from-messages-response.ts';
import { AnthropicStreamMapper } from './stream-mapper.ts';
import { toMessagesRequest } from './to-messages-request.ts';

export const ANTHROPIC_ORIGIN = 'https://api.anthropic.com';
/** Page size of model discovery (the API's maximum) and a bound on pages followed. */
const MODELS_PAGE = 1000;
const MAX_MODEL_PAGES = 50;

export default defineProvider({
  name: 'anthropic',
  configSchema: providerBaseSchema,
  setup({ name, config, log }): Provider {
    const origin = messagesOrigin(config.base_url ?? ANTHROPIC_ORIGIN);
    const timeoutMs = config.timeout_seconds * 1000;
    const auth = { 'x-api-key': config.api_key };
    const chatUrl = `${origin}/v1/messages`;

    async function chat(req: ChatRequest, call: CallContext): Promise<ChatResult> {
      const { body, warnings } = toMessagesRequest(req);
      if (warnings.length && call.log.isLevelEnabled('debug')) call.log.debug({ provider: name, warnings }, 'chat fields degraded in translation to Messages');
      const stream = body.stream === true;
      const res = await callUpstream(chatUrl, { headers: messagesHeaders(auth, call.headers, stream, false), body: JSON.stringify(body), signal: call.signal, timeoutMs, provider: name, log: call.log });
      if (res.statusCode >= 400) return failMessages(name, res, chatUrl, timeoutMs, call.signal);
      if (!stream) {
        const text = await readBody(res, name, chatUrl, timeoutMs, call.signal);
        const parsed = parseUpstreamJson<MessagesResponse>(text, name);
        if (!parsed || typeof parsed !== 'object' || !Array.isArray(parsed.content)) {
          throw new GatewayError(502, `provider ${name} sent a Messages response without content: ${snippet(text)}`, { code: 'upstream_malformed', provider: name });
        }
        return { type: 'json', body: fromMessagesResponse(parsed) };
      }
      const ct = String(res.headers['content-type'] ?? '');
      if (!ct.includes('text/event-stream')) {
        const text = await readBody(res, name, chatUrl, timeoutMs, call.signal).catch(() => '');
        throw new GatewayError(502, `provider ${name} answered a stream request with ${ct || 'no content type'}: ${snippet(text)}`, { code: 'upstream_malformed', provider: name });
      }
      return { type: 'stream', chunks: translateStream(res, call.signal) };
    }

    /** Messages events → common chunks; the mapper's errors get the provider's name. */
    async function* translateStream(res: UpstreamResponse, signal: AbortSignal): AsyncGenerator<StreamItem> {
      const mapper = new AnthropicStreamMapper();
      try {
        for await (const ev of sseEvents(res.body, name, chatUrl, timeoutMs, signal)) yield* mapper.push(ev);
        yield* mapper.end();
      } catch (err) {
        if (err instanceof GatewayError && err.provider === undefined) {
          err.provider = name;
          err.message = `provider ${name}: ${err.message}`;
        }
        throw err;
      } finally {
        releaseBody(res, false);
      }
    }

    return {
      name,
      kind: config.kind ?? name,
      models: config.models ?? [],
      chat,
      messages: createMessagesPassthrough({ name, origin, auth, timeoutMs }),
      listModels: (signal) => listModels(name, origin, auth, timeoutMs, log, signal),
    };
  },
});

/**
 * Every model id of `GET {origin}/v1/models`, following `has_more`/`last_id` pages.
 * @throws GatewayError 502 naming the URL and status of the page that failed.
 * @see https://docs.anthropic.com/en/api/models-list
 */
async function listModels(name: string, origin: string, auth: Record<string, string>, timeoutMs: number, log: Logger, signal?: AbortSignal): Promise<string[]> {
  const ids: string[] = [];
  const headers = messagesHeaders(auth, {}, false, false);
  let after: string | undefined;
  for (let page = 0; page < MAX_MODEL_PAGES; page++) {
    const url = `${origin}/v1/models?limit=${MODELS_PAGE}${after ? `&after_id=${encodeURIComponent(after)}` : ''}`;
    const res = await callUpstream(url, { method: 'GET', headers, signal, timeoutMs: Math.min(timeoutMs, 15_000), provider: name, log });
    const text = await readBody(res, name, url, timeoutMs, signal);
    if (res.statusCode >= 400) throw new GatewayError(502, `model discovery failed: GET ${url} answered HTTP ${res.statusCode}: ${snippet(text)}`, { code: 'discovery_failed', upstreamStatus: res.statusCode, provider: name });
    const body = parseUpstreamJson<{ data?: Array<{ id?: unknown }>; has_more?: boolean; last_id?: string | null }>(text, name);
    if (!Array.isArray(body?.data)) throw new GatewayError(502, `model discovery failed: GET ${url} returned no data array`, { code: 'discovery_failed', provider: name });
    for (const m of body.data) if (typeof m.id === 'string') ids.push(m.id);
    if (!body.has_more || !body.last_id) return ids;
    after = body.last_id;
  }
  return ids;
}
