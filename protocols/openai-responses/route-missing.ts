/**
 * An upstream assumed to speak the Responses API that turns out not to (a vLLM, Ollama or
 * llama.cpp server behind an `openai` section): its 404 for POST /responses is about the
 * route, not the model, so the provider switches to translated (Responses ⇄ chat through
 * the common format) once, and the request that found out is served translated too — the
 * client (Codex, which would retry the 404 five times) never sees it. Only for a provider
 * whose `responses` setting was left to its default: a configured value always wins.
 */
import { GatewayError } from 'gw/plugin';
import type { NativeCall } from '../../lib/provider.ts';

/**
 * Thrown by a native Responses call whose upstream has no Responses API: the route serves
 * the same request translated (route.ts).
 */
export class ResponsesRouteMissing extends Error {
  /** The upstream's 404. */
  readonly upstream: GatewayError;

  constructor(upstream: GatewayError) {
    super(upstream.message);
    this.name = 'ResponsesRouteMissing';
    this.upstream = upstream;
  }
}

/** What an upstream's 404 says when the route exists and the model does not. */
const ABOUT_THE_MODEL = /\bmodels?\b|model_not_found/i;

/**
 * True for an upstream 404 that says the endpoint does not exist: OpenAI's 404 for an
 * unknown model carries `model_not_found` and names the model; vLLM's and Ollama's name the
 * model too, while their missing-route answers (`{"detail":"Not Found"}`, `404 page not
 * found`, llama.cpp's `File Not Found`, a framework's `no route POST /v1/responses`) do not.
 */
export function isRouteMissing(err: unknown, provider: string): err is GatewayError {
  if (!(err instanceof GatewayError) || err.upstreamStatus !== 404 || err.code === 'model_not_found') return false;
  // the message is `provider <name>: <upstream's text>`; a provider's own name says nothing
  const prefix = `provider ${provider}: `;
  const text = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  return !ABOUT_THE_MODEL.test(text);
}

/**
 * Wraps a provider's native Responses call: the first time its upstream answers a request
 * (one that does not continue a conversation the upstream stored itself) with a route-missing
 * 404, `onMissing` runs once (the provider drops its native entry and logs why) and the call
 * throws ResponsesRouteMissing; every other failure passes through unchanged.
 */
export function switchOnRouteMissing(call: NativeCall, provider: string, onMissing: (err: GatewayError) => void): NativeCall {
  let switched = false;
  return async function responses(body, ctx, op) {
    try {
      return await call(body, ctx, op);
    } catch (err) {
      if (body.previous_response_id !== undefined || !isRouteMissing(err, provider)) throw err;
      if (!switched) {
        switched = true;
        onMissing(err);
      }
      throw new ResponsesRouteMissing(err);
    }
  };
}
