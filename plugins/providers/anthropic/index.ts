/**
 * The `anthropic` kind. /v1/chat/completions is translated to the Messages API with the
 * Messages kit's pure functions (`gw/plugin/anthropic-messages`; its README.md lists every
 * decision); Messages-format clients get native passthrough (`native['anthropic-messages']`).
 * No embeddings (the core answers 400). Models are discovered from `GET {origin}/v1/models`, following its pages.
 * Auth: `x-api-key`; every call carries `anthropic-version` (the client's, else 2023-06-01).
 * `base_url` is the origin without `/v1` (default https://api.anthropic.com).
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/api/models-list
 */
import {
  type CallContext,
  type ChatRequest,
  type ChatResult,
  defineProvider,
  errors,
  type Provider,
  providerBaseSchema,
  type StreamItem,
  type UpstreamResponse,
} from 'gw/plugin';
import { snippet } from 'gw/plugin/format';
import {
  MessagesToCommonStep,
  fromMessagesResponse,
  type MessagesResponse,
  messagesHeaders,
  messagesOrigin,
  messagesPassthrough,
  readMessagesError,
  toMessagesRequest,
} from 'gw/plugin/anthropic-messages';

export const ANTHROPIC_ORIGIN = 'https://api.anthropic.com';
/** Page size of model discovery (the API's maximum). */
const MODELS_PAGE = 1000;

export default defineProvider({
  name: 'anthropic',
  configSchema: providerBaseSchema,
  routing: ['max_retries', 'weight'],
  setup({ name, config, http: client }): Provider {
    const origin = messagesOrigin(config.base_url ?? ANTHROPIC_ORIGIN);
    const http = client({ timeoutMs: config.timeout_seconds * 1000, readError: readMessagesError });
    const auth = { 'x-api-key': config.api_key };
    const chatUrl = `${origin}/v1/messages`;

    async function chat(req: ChatRequest, call: CallContext): Promise<ChatResult> {
      const { body, warnings } = toMessagesRequest(req);
      if (warnings.length && call.log.isLevelEnabled('debug')) call.log.debug({ provider: name, warnings }, 'chat fields degraded in translation to Messages');
      const stream = body.stream === true;
      const res = await http.send(chatUrl, {
        headers: messagesHeaders(auth, call.headers, stream, false),
        body,
        signal: call.signal,
        log: call.log,
        large: call.large,
      });
      if (!stream) {
        const parsed = await http.json<MessagesResponse>(res, chatUrl, call.signal);
        if (!parsed || typeof parsed !== 'object' || !Array.isArray(parsed.content)) {
          throw errors.UPSTREAM_MALFORMED(
            { provider: name, what: `a Messages response without content: ${snippet(JSON.stringify(parsed))}` },
            { provider: name },
          );
        }
        return { type: 'json', body: fromMessagesResponse(parsed) };
      }
      return { type: 'stream', chunks: translateStream(res, call.signal) };
    }

    /** Messages events → common chunks. */
    async function* translateStream(res: UpstreamResponse, signal: AbortSignal): AsyncGenerator<StreamItem> {
      const mapper = new MessagesToCommonStep({ provider: name });
      for await (const ev of await http.events(res, chatUrl, signal, (e) => e.event === 'message_stop')) yield* mapper.push(ev);
      yield* mapper.end();
    }

    return {
      name,
      kind: config.kind ?? name,
      models: config.models ?? [],
      chat,
      native: { 'anthropic-messages': messagesPassthrough(http, origin, auth) },
      listModels: (signal) =>
        http.pages(
          `${origin}/v1/models?limit=${MODELS_PAGE}`,
          messagesHeaders(auth, {}, false, false),
          (body) => {
            const b = body as { data?: Array<{ id?: unknown }>; has_more?: boolean; last_id?: string | null };
            if (!Array.isArray(b?.data)) return undefined;
            const items = b.data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
            return { items, next: b.has_more && b.last_id ? `${origin}/v1/models?limit=${MODELS_PAGE}&after_id=${encodeURIComponent(b.last_id)}` : undefined };
          },
          { signal },
        ),
    };
  },
});
