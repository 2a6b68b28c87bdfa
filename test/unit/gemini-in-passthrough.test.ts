/**
 * The small pure pieces around the Gemini routes: the upstream query and body of the
 * native passthrough, an error inside an upstream Gemini stream, the raw-element JSON-array
 * framing, and who counts as a Gemini client on GET /v1/models.
 */
import test from 'ava';
import type { Context } from 'koa';
import { GatewayError } from '../../core/errors.ts';
import { geminiStreamError } from '../../protocols/gemini/google-error.ts';
import { upstreamBody, upstreamQuery } from '../../protocols/gemini/passthrough.ts';
import { fromGeminiClient } from '../../plugins/formats/gemini/route-models.ts';
import { JsonArrayFraming } from '../../protocols/gemini/stream-framing.ts';

test('upstreamQuery: the client query as is, alt=sse forced for streams', (t) => {
  t.is(upstreamQuery('', false), '');
  t.is(upstreamQuery('$alt=json', false), '?$alt=json');
  t.is(upstreamQuery('', true), '?alt=sse');
  t.is(upstreamQuery('alt=sse', true), '?alt=sse');
  t.is(upstreamQuery('alt=json&prettyPrint=false', true), '?alt=sse&prettyPrint=false');
});

test('upstreamBody: no model field; nested model names re-targeted only where given', (t) => {
  const body = { model: 'canonical', contents: [{ parts: [{ text: 'x' }] }] };
  t.deepEqual(upstreamBody(body, 'canonical'), { contents: body.contents });
  t.is(body.model, 'canonical', 'the input is not changed');
  t.deepEqual(upstreamBody({ model: 'm', requests: [{ model: 'models/alias', content: {} }, { content: {} }] }, 'm'), {
    requests: [{ model: 'models/m', content: {} }, { content: {} }],
  });
  t.deepEqual(upstreamBody({ model: 'm', generateContentRequest: { model: 'models/alias', contents: [] } }, 'm'), {
    generateContentRequest: { model: 'models/m', contents: [] },
  });
  t.deepEqual(upstreamBody({ model: 'm', generateContentRequest: { contents: [] } }, 'm'), { generateContentRequest: { contents: [] } });
});

test("geminiStreamError: a 4xx code keeps its status, anything else is 502; Google's status name is the code", (t) => {
  const quota = geminiStreamError({ code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' }, 'g', true);
  t.is(quota.status, 429);
  t.is(quota.code, 'RESOURCE_EXHAUSTED');
  t.is(quota.message, 'provider g: slow down');
  const mid = geminiStreamError({ code: 503, message: 'overloaded', status: 'UNAVAILABLE' }, 'g');
  t.is(mid.status, 502);
  t.is(mid.upstreamStatus, 503);
  t.is(mid.message, 'provider g failed mid-stream: overloaded');
  t.is(geminiStreamError('garbage', 'g').status, 502);
});

test('JsonArrayFraming: raw elements, the closing bracket, an error after the first element', (t) => {
  const a = new JsonArrayFraming();
  t.is(a.element('{"a":1}') + a.element('{"b":2}') + a.end(), '[{"a":1},\r\n{"b":2}]');
  const b = new JsonArrayFraming();
  const text = b.element('{"a":1}') + b.error(new GatewayError(502, 'cut'));
  t.deepEqual(JSON.parse(text), [{ a: 1 }, { error: { code: 502, message: 'cut', status: 'UNAVAILABLE' } }]);
  t.is(b.end(), '');
});

test('fromGeminiClient: x-goog-api-key, ?key= or x-goog-api-client; not OpenAI or Anthropic clients', (t) => {
  const ctx = (headers: Record<string, string>, querystring = '') => ({ get: (h: string) => headers[h] ?? '', querystring }) as unknown as Context;
  t.true(fromGeminiClient(ctx({ 'x-goog-api-key': 'k' })));
  t.true(fromGeminiClient(ctx({}, 'key=k')));
  t.true(fromGeminiClient(ctx({}, 'pageSize=2&key=k')));
  t.true(fromGeminiClient(ctx({ 'x-goog-api-client': 'google-genai-sdk/1.30.0 gl-node/v24' })));
  t.false(fromGeminiClient(ctx({ authorization: 'Bearer k' })));
  t.false(fromGeminiClient(ctx({ 'x-api-key': 'k', 'anthropic-version': '2023-06-01' })));
  t.false(fromGeminiClient(ctx({}, 'monkey=1')));
});
