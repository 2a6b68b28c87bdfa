/**
 * The `openai` kind, and every self-defined kind with a `base_url` (any upstream that
 * speaks the common format: vLLM, Ollama, LM Studio, OpenRouter…).
 * Auth: `Authorization: Bearer <api_key>`.
 *
 * POST /v1/responses: native (`{base_url}/responses`, body and events unchanged) for the
 * `openai` kind; a self-defined section opts in with `responses = "native"` when its
 * upstream serves the Responses API too (`"translated"` turns it off for an `openai`
 * section pointing at a server that has only chat completions).
 */
import { z } from 'zod';
import { defineProvider } from '../../../core/plugins/contract.ts';
import { providerBaseSchema } from '../../../core/plugins/provider-schema.ts';
import { responsesPassthrough } from '../../formats/openai-responses/passthrough.ts';
import { createCompatibleProvider } from './compatible.ts';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

const schema = providerBaseSchema.extend({
  /** How POST /v1/responses reaches this provider; default `native` for the openai kind, `translated` otherwise. */
  responses: z.enum(['native', 'translated']).optional(),
});

export default defineProvider({
  name: 'openai',
  configSchema: schema,
  routing: ['max_retries', 'weight'],
  setup({ name, config, http }) {
    const kind = config.kind ?? name;
    const baseUrl = config.base_url ?? OPENAI_BASE_URL;
    const client = http({ timeoutMs: config.timeout_seconds * 1000 });
    const headers = { authorization: `Bearer ${config.api_key}` };
    const native = (config.responses ?? (kind === 'openai' ? 'native' : 'translated')) === 'native';
    return createCompatibleProvider({
      name,
      kind,
      baseUrl,
      models: config.models ?? [],
      http: client,
      headers,
      native: native ? { 'openai-responses': responsesPassthrough(client, `${baseUrl.replace(/\/+$/, '')}/responses`, headers) } : undefined,
    });
  },
});
