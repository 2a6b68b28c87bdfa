/**
 * The `openai` kind, and every self-defined kind with a `base_url` (any upstream that
 * speaks the common format: vLLM, Ollama, LM Studio, OpenRouter…).
 * Auth: `Authorization: Bearer <api_key>`.
 *
 * POST /v1/responses: native (`{base_url}/responses`, body and events unchanged) for the
 * `openai` kind; a self-defined section opts in with `responses = "native"` when its
 * upstream serves the Responses API too (`"translated"` turns it off for an `openai`
 * section pointing at a server that has only chat completions). Left to its default, an
 * `openai` section whose upstream answers POST /responses with a 404 for the route (not for
 * the model) switches itself to translated, once, with a warning (`switchOnRouteMissing`
 * of the kit `gw/plugin/openai-responses`).
 */
import { defineProvider, providerBaseSchema, redactUrl, vendorProvider } from 'gw/plugin';
import { openaiChat } from 'gw/plugin/openai-chat';
import { openaiResponses, switchOnRouteMissing } from 'gw/plugin/openai-responses';
import { z } from 'zod';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

const schema = providerBaseSchema.extend({
  /** How POST /v1/responses reaches this provider; default `native` for the openai kind, `translated` otherwise. */
  responses: z.enum(['native', 'translated']).optional(),
});

export default defineProvider({
  name: 'openai',
  configSchema: schema,
  routing: ['max_retries', 'weight'],
  setup(ctx) {
    const { name, config, log } = ctx;
    const origin = config.base_url ?? OPENAI_BASE_URL;
    const mode = config.responses ?? ((config.kind ?? name) === 'openai' ? 'native' : 'translated');
    const url = `${origin.replace(/\/+$/, '')}/responses`;
    // left to its default, an upstream with no Responses API switches this provider to translated, once
    const wrap =
      config.responses === undefined
        ? (call: Parameters<typeof switchOnRouteMissing>[0], drop: () => void) =>
            switchOnRouteMissing(call, name, (err) => {
              drop();
              log.warn(
                { provider: name, upstream: err.message },
                `provider ${name}: POST ${redactUrl(url)} answered 404 for the route, so its upstream has no Responses API: /v1/responses is translated to chat completions from now on (set responses = "translated" or "native" on [providers.${name}] to decide)`,
              );
            })
        : undefined;
    return vendorProvider(ctx, {
      protocol: openaiChat,
      origin,
      auth: { authorization: `Bearer ${config.api_key}` },
      native: mode === 'native' ? [{ protocol: openaiResponses, wrap }] : [],
    });
  },
});
