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
import { defineProvider, type NativeCall, providerBaseSchema, redactUrl } from 'gw/plugin';
import { createCompatibleProvider } from 'gw/plugin/openai-chat';
import { OPENAI_RESPONSES, responsesPassthrough, switchOnRouteMissing } from 'gw/plugin/openai-responses';
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
  setup({ name, config, http, log }) {
    const kind = config.kind ?? name;
    const baseUrl = config.base_url ?? OPENAI_BASE_URL;
    const client = http({ timeoutMs: config.timeout_seconds * 1000 });
    const headers = { authorization: `Bearer ${config.api_key}` };
    const mode = config.responses ?? (kind === 'openai' ? 'native' : 'translated');
    let native: Record<string, NativeCall> | undefined;
    if (mode === 'native') {
      const url = `${baseUrl.replace(/\/+$/, '')}/responses`;
      const passthrough = responsesPassthrough(client, url, headers);
      native = {
        [OPENAI_RESPONSES]:
          config.responses === undefined
            ? switchOnRouteMissing(passthrough, name, (err) => {
                // later requests find no native entry and are translated from the start
                delete native![OPENAI_RESPONSES];
                log.warn(
                  { provider: name, upstream: err.message },
                  `provider ${name}: POST ${redactUrl(url)} answered 404 for the route, so its upstream has no Responses API: /v1/responses is translated to chat completions from now on (set responses = "translated" or "native" on [providers.${name}] to decide)`,
                );
              })
            : passthrough,
      };
    }
    return createCompatibleProvider({ name, kind, baseUrl, models: config.models ?? [], http: client, headers, native });
  },
});
