import { readFileSync } from 'node:fs';
import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import { mapUpstreamError } from '../../plugins/providers/gemini/map-error.ts';

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/gemini/vercel-ai/${name}`, import.meta.url), 'utf8');

test('429 RESOURCE_EXHAUSTED stays 429 with its message, status code and retry-after from RetryInfo', (t) => {
  const err = mapUpstreamError(429, fixture('error.429.resource-exhausted.json'));
  t.true(err instanceof GatewayError);
  t.is(err.status, 429);
  t.is(err.type, 'rate_limit_error');
  t.is(err.message, 'You exceeded your current quota, please check your plan.');
  t.is(err.code, 'RESOURCE_EXHAUSTED');
  t.is(err.upstreamStatus, 429);
  t.deepEqual(err.headers, { 'retry-after': '35' });
});

test('a 4xx keeps its status; no RetryInfo, no retry-after', (t) => {
  const err = mapUpstreamError(400, JSON.stringify({ error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } }));
  t.is(err.status, 400);
  t.is(err.message, 'API key not valid. Please pass a valid API key.');
  t.is(err.code, 'INVALID_ARGUMENT');
  t.is(err.headers, undefined);
});

test('a 5xx becomes 502 with the upstream status and message kept in the body', (t) => {
  const err = mapUpstreamError(503, JSON.stringify({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }));
  t.is(err.status, 502);
  t.is(err.upstreamStatus, 503);
  t.deepEqual(err.toJSON(), { error: { message: 'The model is overloaded. Please try again later.', type: 'upstream_error', code: 'UNAVAILABLE', param: null, upstream_status: 503 } });
});

test('an unparseable body is quoted, cut to 200 characters', (t) => {
  const html = `<html>${'x'.repeat(300)}</html>`;
  const err = mapUpstreamError(500, html);
  t.is(err.status, 502);
  t.is(err.message, `upstream returned 500: ${html.slice(0, 200)}`);
  t.is(mapUpstreamError(404, '').message, 'upstream returned 404');
  t.is(mapUpstreamError(404, '').status, 404);
});
