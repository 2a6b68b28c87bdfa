/**
 * An upstream assumed to speak the Responses API that does not (vLLM, Ollama, llama.cpp behind
 * an `openai` section): on its route-missing 404 the provider switches to translated once, and
 * that request is served translated too, so the client (Codex would retry the 404 five times)
 * never sees it. Only while the `responses` setting is left to its default.
 */
import { GatewayError } from 'gw/plugin';
import type { NativeCall } from '../../lib/provider.ts';

/** Thrown by a native Responses call whose upstream has no Responses API; the route serves it translated. */
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

/** True for an upstream 404 about the endpoint: OpenAI's, vLLM's and Ollama's unknown-model 404s name the model, route-missing ones do not. */
export function isRouteMissing(err: unknown, provider: string): err is GatewayError {
  if (!(err instanceof GatewayError) || err.upstreamStatus !== 404 || err.code === 'model_not_found') return false;
  // the message is `provider <name>: <upstream's text>`; a provider's own name says nothing
  const prefix = `provider ${provider}: `;
  const text = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  return !ABOUT_THE_MODEL.test(text);
}

/**
 * Wraps a native Responses call: on a route-missing 404 (not for a `previous_response_id`
 * the upstream stored), `onMissing` runs once and the call throws ResponsesRouteMissing.
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
