/**
 * Calling an upstream that speaks Messages (Anthropic, and the Messages origins of dashscope,
 * zhipu or a third party's vendor): a common request translated to Messages and its answer and
 * events back, the native call of Messages clients (bytes, query and `anthropic-beta` forwarded),
 * model discovery by `after_id` pages. `origin` is without `/v1` (a pasted `/v1` is dropped).
 * @see Anthropic API: Messages, List Models
 */
import { errors } from 'gw/plugin';
import { parseUpstreamJson, snippet } from '../../lib/http/upstream.ts';
import type { VendorSide } from '../../lib/vendor/side.ts';
import { readMessagesError } from './errors.ts';
import { fromMessagesResponse } from './from-messages-response.ts';
import { messagesHeaders, messagesOrigin } from './passthrough.ts';
import { MessagesToCommonStep } from './to-common-step.ts';
import { toMessagesRequest } from './to-messages-request.ts';
import type { MessagesResponse } from './types.ts';

/** Page size of model discovery (the API's maximum). */
const MODELS_PAGE = 1000;

const modelsUrl = (origin: string, after?: string) =>
  `${messagesOrigin(origin)}/v1/models?limit=${MODELS_PAGE}${after === undefined ? '' : `&after_id=${encodeURIComponent(after)}`}`;

/** The Messages protocol's vendor side. */
export const messagesVendor = {
  readError: readMessagesError,
  endpoints(origin) {
    const url = `${messagesOrigin(origin)}/v1/messages`;
    return { chat: () => url, models: modelsUrl(origin) };
  },
  // the client's anthropic-version (else the default) on every call; anthropic-beta only natively
  headers: (call, stream) => messagesHeaders({}, call?.headers ?? {}, stream, false),
  chat: {
    request: (req) => toMessagesRequest(req),
    answer(text, env) {
      const parsed = parseUpstreamJson<MessagesResponse | null>(text, env.provider);
      if (!parsed || typeof parsed !== 'object' || !Array.isArray(parsed.content))
        throw errors.UPSTREAM_MALFORMED({ provider: env.provider, what: `a Messages response without content: ${snippet(text)}` }, { provider: env.provider });
      return { body: fromMessagesResponse(parsed) };
    },
    step: (env) => new MessagesToCommonStep({ provider: env.provider }),
    isTerminal: (ev) => ev.event === 'message_stop',
  },
  native(op, body, call, origin) {
    const stream = op !== 'count_tokens' && body.stream === true;
    const endpoint = `${messagesOrigin(origin)}/v1/messages${op === 'count_tokens' ? '/count_tokens' : ''}`;
    return {
      url: call.query ? `${endpoint}?${call.query}` : endpoint,
      stream,
      headers: messagesHeaders({}, call.headers, stream, true),
      isTerminal: (ev) => ev.event === 'message_stop',
    };
  },
  models: {
    page(body, origin) {
      const b = body as { data?: Array<{ id?: unknown }>; has_more?: boolean; last_id?: string | null } | null;
      if (!Array.isArray(b?.data)) return undefined;
      const items = b.data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
      return { items, next: b.has_more && b.last_id ? modelsUrl(origin, b.last_id) : undefined };
    },
  },
} satisfies VendorSide;
