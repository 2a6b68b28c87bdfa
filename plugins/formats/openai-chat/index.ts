/**
 * The OpenAI client format, chat side: POST /v1/chat/completions (the common format, so
 * nothing to translate here), POST /v1/embeddings, GET /v1/models[/{id}]. Errors in
 * OpenAI's shape. Gateway keys as `Authorization: Bearer`; the model list also takes
 * `x-api-key` (Anthropic clients list models there, answered in Anthropic's shape by the
 * anthropic-messages format when they send `anthropic-version`).
 * @see OpenAI API reference: Chat Completions
 */
import { defineFormat } from 'gw/plugin';
import { errorResponses, jsonRequestBody } from 'gw/plugin/format';
import { openaiChat } from 'gw/plugin/openai-chat';
import { getModel, listModels } from './models.ts';

export default defineFormat({
  protocol: openaiChat,
  setup({ route }) {
    const errors = errorResponses([400, 401, 404, 413, 415, 429, 502, 504]);
    route({
      method: 'POST',
      path: '/v1/chat/completions',
      body: true,
      metered: 'chat',
      generate: openaiChat.client.generate,
      openapi: {
        summary: 'Create a chat completion (stream: true → text/event-stream)',
        requestBody: jsonRequestBody(openaiChat.schema.request),
        responses: { 200: { description: 'chat.completion, or SSE chat.completion.chunk events ending with data: [DONE]' }, ...errors },
      },
    });
    route({
      method: 'POST',
      path: '/v1/embeddings',
      body: true,
      metered: 'embeddings',
      embeddings: openaiChat.client.embeddings,
      openapi: {
        summary: 'Create embeddings',
        requestBody: jsonRequestBody(openaiChat.client.embeddings.schema),
        responses: { 200: { description: 'list of embeddings' }, ...errors },
      },
    });
    const keyFrom = ['bearer', 'x-api-key'] as const;
    route({
      method: 'GET',
      path: '/v1/models',
      keyFrom,
      handler: listModels,
      openapi: { summary: 'List models and aliases', responses: { 200: { description: 'OpenAI list of models' }, ...errorResponses([401]) } },
    });
    route({
      method: 'GET',
      path: '/v1/models/:id',
      keyFrom,
      handler: getModel,
      openapi: { summary: 'Retrieve a model', responses: { 200: { description: 'model' }, ...errorResponses([401, 404]) } },
    });
  },
});
