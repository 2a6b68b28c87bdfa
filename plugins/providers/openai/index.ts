/**
 * The `openai` kind, and every self-defined kind with a `base_url` (any upstream that
 * speaks the common format: vLLM, Ollama, LM Studio, OpenRouter…).
 * Auth: `Authorization: Bearer <api_key>`.
 */
import { defineProvider } from '../../../core/plugins/contract.ts';
import { providerBaseSchema } from '../../../core/plugins/provider-schema.ts';
import { createCompatibleProvider } from './compatible.ts';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export default defineProvider({
  name: 'openai',
  configSchema: providerBaseSchema,
  routing: ['max_retries', 'weight'],
  setup({ name, config, http }) {
    return createCompatibleProvider({
      name,
      kind: config.kind ?? name,
      baseUrl: config.base_url ?? OPENAI_BASE_URL,
      models: config.models ?? [],
      http: http({ timeoutMs: config.timeout_seconds * 1000 }),
      headers: { authorization: `Bearer ${config.api_key}` },
    });
  },
});
