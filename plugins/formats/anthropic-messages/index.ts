/**
 * The Anthropic Messages client format: POST /v1/messages (native passthrough for kinds
 * with a Messages origin, translated through the common format for every other kind),
 * POST /v1/messages/count_tokens, and Anthropic's model list shape. Errors in Anthropic's
 * shape. Gateway keys in `x-api-key` (what Anthropic clients send) or `Authorization: Bearer`.
 * The protocol itself (types, schemas, errors, stream reading, translations) is the
 * Messages kit, `gw/plugin/anthropic-messages`; its onChunk chunk type is `gw/plugin`'s.
 * @see Anthropic API: Messages
 */
import { defineFormat } from 'gw/plugin';
import { errorResponses, jsonRequestBody, schemaOf } from 'gw/plugin/format';
import { anthropicMessages } from 'gw/plugin/anthropic-messages';
import { fromAnthropicClient, getModel, listModels } from './models.ts';

export default defineFormat({
  protocol: anthropicMessages,
  setup({ route }) {
    const errors = errorResponses([400, 401, 404, 413, 415, 429, 502, 504], schemaOf(anthropicMessages.schema.error));
    route({
      method: 'POST',
      path: '/v1/messages',
      body: true,
      metered: 'messages',
      generate: anthropicMessages.client.generate,
      openapi: {
        summary: 'Anthropic Messages: native passthrough, or translated for other kinds (stream: true → SSE)',
        requestBody: jsonRequestBody(anthropicMessages.schema.request),
        responses: { 200: { description: 'message, or SSE Messages events' }, ...errors },
      },
    });
    route({
      method: 'POST',
      path: '/v1/messages/count_tokens',
      body: true,
      metered: 'count_tokens',
      countTokens: anthropicMessages.client.countTokens,
      openapi: {
        summary: 'Count input tokens: native for Messages-origin kinds, estimated elsewhere (x-gw-estimated)',
        requestBody: jsonRequestBody(anthropicMessages.client.countTokens.schema),
        responses: { 200: { description: '{input_tokens}' }, ...errors },
      },
    });
    route({ method: 'GET', path: '/v1/models', when: fromAnthropicClient, handler: listModels });
    route({ method: 'GET', path: '/v1/models/:id', when: fromAnthropicClient, handler: getModel });
  },
});
