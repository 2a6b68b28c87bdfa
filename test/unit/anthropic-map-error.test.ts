import test from 'ava';
import { mapUpstreamError } from '../../plugins/providers/anthropic/map-error.ts';
import { readFixture } from './anthropic-sse-helper.ts';

test('529 overloaded (error.529.overloaded.json) → 502 keeping status, message and type', (t) => {
  const err = mapUpstreamError(529, readFixture('vercel-ai/error.529.overloaded.json'));
  t.is(err.status, 502);
  t.is(err.upstreamStatus, 529);
  t.is(err.message, 'Overloaded');
  t.is(err.code, 'overloaded_error');
  t.deepEqual(err.toJSON(), { error: { message: 'Overloaded', type: 'upstream_error', code: 'overloaded_error', param: null, upstream_status: 529 } });
});

test('a 5xx becomes 502 with the upstream message', (t) => {
  const err = mapUpstreamError(500, '{"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_1"}');
  t.deepEqual([err.status, err.upstreamStatus, err.message, err.code], [502, 500, 'Internal server error', 'api_error']);
});

test('a 4xx keeps its status and message', (t) => {
  const err = mapUpstreamError(400, '{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 100000 > 64000, which is the maximum allowed"}}');
  t.deepEqual([err.status, err.type, err.message, err.code, err.upstreamStatus], [400, 'invalid_request_error', 'max_tokens: 100000 > 64000, which is the maximum allowed', 'invalid_request_error', 400]);
});

test('429 keeps the status and passes retry-after on', (t) => {
  const err = mapUpstreamError(429, '{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}', { retryAfter: '17' });
  t.deepEqual([err.status, err.type, err.code], [429, 'rate_limit_error', 'rate_limit_error']);
  t.deepEqual(err.headers, { 'retry-after': '17' });
});

test('an unparseable body → message with the status and a truncated snippet', (t) => {
  const html = `<html><head><title>502 Bad Gateway</title></head><body>${'x'.repeat(500)}</body></html>`;
  const err = mapUpstreamError(503, html);
  t.is(err.status, 502);
  t.is(err.upstreamStatus, 503);
  t.is(err.code, null);
  t.true(err.message.startsWith('anthropic upstream answered HTTP 503: <html><head><title>502 Bad Gateway</title>'));
  t.is(err.message.length, 'anthropic upstream answered HTTP 503: '.length + 200 + 1);
  t.true(err.message.endsWith('…'));
});

test('an empty body and a JSON body of another shape', (t) => {
  t.is(mapUpstreamError(502, '').message, 'anthropic upstream answered HTTP 502 with an empty body');
  const err = mapUpstreamError(404, '{"detail":"Not Found"}');
  t.deepEqual([err.status, err.message], [404, 'anthropic upstream answered HTTP 404: {"detail":"Not Found"}']);
});
