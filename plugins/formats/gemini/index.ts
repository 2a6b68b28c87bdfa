/**
 * The Gemini API as a client format, so Gemini CLI and @google/genai apps run through gw on
 * any kind: `models/{model}:generateContent`, `:streamGenerateContent` (`?alt=sse`, else the
 * JSON-array stream), `:countTokens`, `:embedContent`, `:batchEmbedContents`, and the model
 * list, under `/v1beta/` (Gemini CLI) and `/v1/` (@google/genai 3). The gemini kind passes
 * through natively (`native.gemini`); every other kind is translated through the common
 * format. Errors in Google's shape. Gateway keys in `x-goog-api-key` or `?key=` (removed from
 * the query before anything is forwarded, never logged), or `Authorization: Bearer`. The
 * protocol itself (types, schemas, errors, framings, translations) is the Gemini kit,
 * `gw/plugin/gemini`; its onChunk chunk type is `gw/plugin`'s.
 *
 * Paths: the model is one wildcard parameter (`*model`, so ids holding `/` work as clients
 * send them, unencoded) followed by an escaped literal colon and the method
 * (path-to-regexp v8: `\:`); ids holding `:` work too, since the method is anchored at the end.
 * @see Gemini API reference
 */
import { defineFormat } from 'gw/plugin';
import { errorResponses, jsonRequestBody, schemaOf } from 'gw/plugin/format';
import { gemini } from 'gw/plugin/gemini';
import { fromGeminiClient, getModel, listModels } from './route-models.ts';
import { unknownMethod } from './route-unknown.ts';

/** Where Gemini clients put a gateway key, in the order looked at. */
export default defineFormat({
  protocol: gemini,
  setup({ route }) {
    const embed = gemini.client.embeddings(false);
    const batchEmbed = gemini.client.embeddings(true);
    const errors = errorResponses([400, 401, 404, 413, 415, 429, 502, 504], schemaOf(gemini.schema.error));
    const ok = (description: string) => ({ 200: { description }, ...errors });
    for (const v of ['/v1beta', '/v1']) {
      const method = (name: string) => `${v}/models/*model\\:${name}`;
      route({
        method: 'POST',
        path: method('generateContent'),
        body: true,
        metered: 'gemini',
        generate: gemini.client.generate(false),
        openapi: {
          summary: 'Gemini generateContent: native on the gemini kind, translated for the others',
          requestBody: jsonRequestBody(gemini.schema.request),
          responses: ok('GenerateContentResponse'),
        },
      });
      route({
        method: 'POST',
        path: method('streamGenerateContent'),
        body: true,
        metered: 'gemini',
        generate: gemini.client.generate(true),
        openapi: {
          summary: 'Gemini streamGenerateContent: SSE with ?alt=sse, else one JSON array of responses',
          requestBody: jsonRequestBody(gemini.schema.request),
          responses: ok('GenerateContentResponse events (SSE) or a JSON array of them'),
        },
      });
      route({
        method: 'POST',
        path: method('countTokens'),
        body: true,
        metered: 'count_tokens',
        countTokens: gemini.client.countTokens,
        openapi: {
          summary: 'Gemini countTokens: native on the gemini kind, estimated elsewhere (x-gw-estimated)',
          requestBody: jsonRequestBody(gemini.client.countTokens.schema),
          responses: ok('{totalTokens}'),
        },
      });
      route({
        method: 'POST',
        path: method('embedContent'),
        body: true,
        metered: 'embeddings',
        embeddings: embed,
        openapi: {
          summary: 'Gemini embedContent (common-format embeddings for other kinds)',
          requestBody: jsonRequestBody(embed.schema),
          responses: ok('{embedding: {values}}'),
        },
      });
      route({
        method: 'POST',
        path: method('batchEmbedContents'),
        body: true,
        metered: 'embeddings',
        embeddings: batchEmbed,
        openapi: {
          summary: 'Gemini batchEmbedContents (common-format embeddings for other kinds)',
          requestBody: jsonRequestBody(batchEmbed.schema),
          responses: ok('{embeddings: [{values}]}'),
        },
      });
      // after the methods gw serves: any other `{model}:{method}`, in Google's shape (the
      // parameter named as on the GET of the same path, so /openapi.json has one path item)
      route({
        method: 'POST',
        path: `${v}/models/*${v === '/v1' ? 'id' : 'model'}`,
        handler: unknownMethod,
        openapi: { summary: 'Any other Gemini method: 404 NOT_FOUND', responses: errorResponses([404], schemaOf(gemini.schema.error)) },
      });
    }
    const listed = {
      summary: "List models in Gemini's shape (pageSize, pageToken)",
      responses: { 200: { description: '{models, nextPageToken?}' }, ...errorResponses([400, 401], schemaOf(gemini.schema.error)) },
    };
    const got = {
      summary: "Get a model in Gemini's shape",
      responses: { 200: { description: 'Model' }, ...errorResponses([401, 404], schemaOf(gemini.schema.error)) },
    };
    route({ method: 'GET', path: '/v1beta/models', handler: listModels, openapi: listed });
    route({ method: 'GET', path: '/v1beta/models/*model', handler: getModel, openapi: got });
    // /v1/models is OpenAI's (and Anthropic's): answered in Gemini's shape only for Gemini clients
    route({ method: 'GET', path: '/v1/models', when: fromGeminiClient, handler: listModels });
    route({ method: 'GET', path: '/v1/models/:id', when: fromGeminiClient, handler: getModel });
    // ids holding `/` (sent unencoded), which `:id` does not match; registered after it, so
    // this group sees only those paths (for other clients: no route, 404)
    route({ method: 'GET', path: '/v1/models/*id', when: fromGeminiClient, handler: getModel });
  },
});
