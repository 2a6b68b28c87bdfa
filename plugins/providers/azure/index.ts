/**
 * The `azure` kind (Azure OpenAI). Same wire format as OpenAI, so bodies and streams pass
 * through (the empty-choices first chunk carrying `prompt_filter_results` included; it has
 * no usage, so the core forwards it as an ordinary chunk). Two addressing modes:
 * - without `api_version`: the v1 API, `{base_url}/openai/v1/chat/completions` with
 *   `model` = the deployment name; discovery `GET {base_url}/openai/v1/models`;
 * - with `api_version`: `{base_url}/openai/deployments/{model}/chat/completions?api-version=…`
 *   (and `/embeddings`); discovery `GET {base_url}/openai/models?api-version=…`.
 * `base_url` is the resource endpoint `https://{resource}.openai.azure.com` (required).
 * Auth: `api-key`.
 * POST /v1/responses is native: `{base_url}/openai/v1/responses` (the Responses API exists
 * only on the v1 surface, with or without `api_version`), `model` = the deployment name.
 * @see Azure OpenAI: API version lifecycle
 * @see Azure OpenAI: REST API reference
 */
import { defineProvider, providerBaseSchema, vendorProvider } from 'gw/plugin';
import { openaiChat } from 'gw/plugin/openai-chat';
import { openaiResponses } from 'gw/plugin/openai-responses';
import { z } from 'zod';

const schema = providerBaseSchema.extend({
  base_url: z.url({ protocol: /^https?$/, error: 'expected the resource endpoint, e.g. "https://my-resource.openai.azure.com"' }),
  /** e.g. "2024-10-21"; absent → the v1 API (no version, model = deployment). */
  api_version: z.string().min(1).optional(),
});

/** Operation URLs of one Azure resource; `model` is the deployment name. */
export function azureUrls(baseUrl: string, apiVersion: string | undefined): (op: 'chat' | 'embeddings' | 'models', model: string) => string {
  const base = baseUrl.replace(/\/+$/, '');
  if (apiVersion === undefined) return (op) => `${base}/openai/v1/${op === 'chat' ? 'chat/completions' : op}`;
  const q = `?api-version=${encodeURIComponent(apiVersion)}`;
  return (op, model) =>
    op === 'models' ? `${base}/openai/models${q}` : `${base}/openai/deployments/${segment(model)}/${op === 'chat' ? 'chat/completions' : op}${q}`;
}

/** A deployment name as one URL path segment: `.` and `..` are escaped too, or they would walk up the path. */
function segment(name: string): string {
  return /^\.+$/.test(name) ? name.replace(/\./g, '%2E') : encodeURIComponent(name);
}

export default defineProvider({
  name: 'azure',
  configSchema: schema,
  routing: ['max_retries', 'weight'],
  setup(ctx) {
    const { config } = ctx;
    return vendorProvider(ctx, {
      protocol: openaiChat,
      origin: config.base_url,
      auth: { 'api-key': config.api_key },
      url: azureUrls(config.base_url, config.api_version),
      native: [{ protocol: openaiResponses, origin: `${config.base_url.replace(/\/+$/, '')}/openai/v1` }],
    });
  },
});
