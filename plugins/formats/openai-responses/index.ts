/**
 * The OpenAI Responses API as a client format: POST /v1/responses (native passthrough for
 * kinds whose upstream speaks Responses, translated through the common format for every
 * other kind), and the stored responses: GET/DELETE /v1/responses/{id},
 * GET /v1/responses/{id}/input_items. Errors in OpenAI's shape; gateway keys as
 * `Authorization: Bearer`. Settings: `[responses]` (`ttl_days`, `max_chain_length`). The
 * protocol itself (types, translations, the native stream reader) is the kit
 * `gw/plugin/openai-responses` (protocols/openai-responses/); README.md in this folder has
 * the translation table.
 * @see OpenAI API reference: Responses
 */
import { defineFormat } from 'gw/plugin';
import { errorResponses, jsonRequestBody } from 'gw/plugin/format';
import { openaiResponses } from 'gw/plugin/openai-responses';
import { z } from 'zod';
import { ResponseStore } from './response-store.ts';
import { deleteResponse, getResponse, listInputItems } from './retrieve.ts';
import { responsesGenerate } from './route.ts';

/** `[responses]`. */
export const responsesConfigSchema = z.strictObject({
  /** Days a stored response (`store: true`) is kept, from when it was answered. */
  ttl_days: z.number().positive().default(30),
  /**
   * Responses a new one may continue through previous_response_id (a conversation holds one
   * more). At most 10,000: each stored response keeps the ids of the ones it continued, so a
   * conversation's store use grows with the square of its length.
   */
  max_chain_length: z.number().int().min(1).max(10_000).default(1000),
});

/** `responses` with its 409 described as these routes use it. */
function unreadable(responses: Record<string, unknown>): Record<string, unknown> {
  const conflict = responses[409] as Record<string, unknown>;
  return { ...responses, 409: { ...conflict, description: 'A stored response (or one it continues) whose record cannot be read: response_unreadable' } };
}

export default defineFormat<z.output<typeof responsesConfigSchema>>({
  protocol: openaiResponses,
  section: 'responses',
  configSchema: responsesConfigSchema,
  setup({ route, store, config, gateway }) {
    const responses = new ResponseStore(store, config.ttl_days);
    const errors = unreadable(errorResponses([400, 401, 404, 409, 413, 415, 429, 502, 504]));
    route({
      method: 'POST',
      path: '/v1/responses',
      body: true,
      metered: 'responses',
      generate: responsesGenerate({ store: responses, maxBodyBytes: gateway.maxBodyBytes, maxChain: config.max_chain_length }),
      openapi: {
        summary:
          'OpenAI Responses: native passthrough for openai/azure, translated for other kinds (stream: true → SSE Responses events); x-gw-dropped-tools names built-in tools a translated kind could not run',
        requestBody: jsonRequestBody(openaiResponses.schema.request),
        responses: { 200: { description: 'response, or SSE Responses events' }, ...errors },
      },
    });
    const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'A response id (resp_…) created with the same gateway key' };
    const read = unreadable(errorResponses([400, 401, 404, 409]));
    route({
      method: 'GET',
      path: '/v1/responses/:id',
      handler: getResponse(responses),
      openapi: { summary: 'A stored response (same key only)', parameters: [id], responses: { 200: { description: 'response' }, ...read } },
    });
    route({
      method: 'DELETE',
      path: '/v1/responses/:id',
      handler: deleteResponse(responses),
      openapi: {
        summary: "Delete a stored response (gw's copy)",
        parameters: [id],
        responses: { 200: { description: '{id, object: "response", deleted: true}' }, ...read },
      },
    });
    route({
      method: 'GET',
      path: '/v1/responses/:id/input_items',
      handler: listInputItems(responses),
      openapi: {
        summary: "A stored response's input items, the conversation it continued included",
        parameters: [id],
        responses: { 200: { description: 'list of items' }, ...read },
      },
    });
  },
});
