/**
 * Calling an upstream that speaks the common format (OpenAI chat completions): OpenAI itself,
 * self-defined kinds (vLLM, Ollama, LM Studio…), vendors that are settings plus small quirks
 * on top of it (azure, dashscope, zhipu). Bodies and chunks pass through untouched wherever
 * nothing needs to change: the client's bytes go as sent, a chunk's text is forwarded unparsed.
 * @see OpenAI API reference: Create chat completion, The chat completion chunk object
 */
import { type ChatCompletion, type ChatCompletionChunk, type EmbeddingsResponse, errors, type GatewayError } from 'gw/plugin';
import type { StreamItem } from '../../lib/provider.ts';
import type { ChunkQuirk, VendorSide } from '../../lib/vendor/side.ts';
import { isBlank, malformedEvent, objectFramed, parseEventObject } from '../../lib/common/sse-data.ts';
import { parseUpstreamJson, snippet } from '../../lib/http/upstream.ts';
import type { SseEvent } from '../../lib/provider.ts';
import { modelIds } from './models.ts';

/** The common format's vendor side; `forward` takes the provider's chunk quirk. */
export const chatVendor = {
  endpoints(origin) {
    const base = origin.replace(/\/+$/, '');
    return { chat: () => `${base}/chat/completions`, embeddings: () => `${base}/embeddings`, models: `${base}/models` };
  },
  chat: {
    request(req, call) {
      // gw always asks for usage so accounting is exact; the kernel hides it from clients that did not ask
      if (req.stream === true && req.stream_options?.include_usage !== true)
        return { body: { ...req, stream_options: { ...(req.stream_options ?? {}), include_usage: true } } };
      return { body: call.rawBody ?? req };
    },
    answer(text, env) {
      const parsed = parseUpstreamJson<ChatCompletion | null>(text, env.provider);
      if (parsed && typeof parsed === 'object' && 'error' in parsed && !('choices' in parsed)) throw env.errorFor(500, text);
      if (!parsed || !Array.isArray(parsed.choices))
        throw errors.UPSTREAM_MALFORMED({ provider: env.provider, what: `a completion without choices: ${snippet(text)}` }, { provider: env.provider });
      return { body: parsed, raw: text };
    },
    forward: forwardChunks,
    isTerminal: (ev) => ev.data === '[DONE]',
  },
  embeddings: {
    request: (req, call) => call.rawBody ?? req,
    answer(text, _req, env) {
      const body = parseUpstreamJson<EmbeddingsResponse | null>(text, env.provider);
      if (!body || !Array.isArray(body.data))
        throw errors.UPSTREAM_MALFORMED({ provider: env.provider, what: `an embeddings response without data: ${snippet(text)}` }, { provider: env.provider });
      return { body, raw: text };
    },
  },
  models: {
    page(body) {
      const items = modelIds(body);
      return items && { items };
    },
    maxPages: 1,
  },
} satisfies VendorSide;

/**
 * The stream's chunks as the upstream's text, one per event, until `[DONE]`: an error event
 * fails the stream; blank data is skipped, data not framed as an object is malformed
 * (lib/common/sse-data.ts); `quirk` parses and rewrites only the chunks its `chunkIf` picks.
 * @throws GatewayError 502 `upstream_truncated` when the stream ends without `[DONE]`
 */
async function* forwardChunks(events: AsyncIterable<SseEvent>, env: { provider: string }, quirk?: ChunkQuirk): AsyncGenerator<StreamItem> {
  const provider = env.provider;
  const map = quirk?.chunk;
  const mapIf = quirk?.chunkIf;
  let done = false;
  for await (const ev of events) {
    const data = ev.data;
    if (data === '[DONE]') {
      done = true;
      break;
    }
    if (ev.event === 'error' || data.startsWith('{"error"')) throw streamError(provider, data);
    if (!objectFramed(data)) {
      if (isBlank(data)) continue;
      throw malformedEvent(provider, data, 'a stream chunk that is not a JSON object');
    }
    if (!map || (mapIf && !mapIf(data))) {
      yield data;
      continue;
    }
    yield* map(parseEventObject<ChatCompletionChunk>(data, provider, 'a stream chunk that is not a JSON object'));
  }
  if (!done) throw errors.UPSTREAM_TRUNCATED({ provider, expected: '[DONE]' }, { provider });
}

/** An error event inside a common-format stream (`data: {"error": …}`) → 502 `upstream_error`, the upstream's code kept. */
function streamError(provider: string, data: string): GatewayError {
  let message = data.slice(0, 200);
  let code: string | undefined;
  try {
    const e = (JSON.parse(data) as { error?: { message?: string; code?: unknown } }).error;
    if (e?.message) message = e.message;
    if (e?.code != null) code = String(e.code);
  } catch {
    // keep the raw snippet
  }
  const err = errors.UPSTREAM_ERROR(`provider ${provider} failed mid-stream: ${message}`, { provider });
  if (code) err.upstreamCode = code;
  return err;
}
