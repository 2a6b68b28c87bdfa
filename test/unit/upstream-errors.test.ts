/**
 * Upstream error answers → GatewayErrors: the upstream client's one rule set (4xx kept,
 * 401/403 → 502 upstream_auth_failed, 5xx → 502 upstream_error) over each kind's reader of
 * its error bodies, against recorded error payloads.
 */
import { readFileSync } from 'node:fs';
import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import { createUpstreamClient, type UpstreamErrorInfo } from '../../lib/http/client.ts';
import { createLogger } from '../../server/log.ts';
import { readMessagesError } from '../../protocols/anthropic-messages/errors.ts';
import { readGeminiError } from '../../protocols/gemini/google-error.ts';

const fixture = (path: string): string => readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');
const client = (provider: string, readError?: (status: number, text: string) => UpstreamErrorInfo) =>
  createUpstreamClient({ provider, dispatcher: undefined as never, log: createLogger('error'), timeoutMs: 1000, readError });

const anthropic = client('claude', readMessagesError);
const gemini = client('google', readGeminiError);
const openai = client('oai');

test('anthropic 529 overloaded (recorded) → 502 upstream_error keeping status, message and type', (t) => {
  const err = anthropic.errorFor(529, fixture('anthropic/vercel-ai/error.529.overloaded.json'));
  t.true(err instanceof GatewayError);
  t.deepEqual(err.toJSON(), {
    error: {
      message: 'provider claude failed with HTTP 529: Overloaded',
      type: 'upstream_error',
      code: 'upstream_error',
      param: null,
      upstream_status: 529,
      upstream_code: 'overloaded_error',
    },
  });
});

test('anthropic: a 4xx keeps its status, message and type; 429 passes retry-after on', (t) => {
  const err = anthropic.errorFor(
    400,
    '{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 100000 > 64000, which is the maximum allowed"}}',
  );
  t.deepEqual(
    [err.status, err.type, err.message, err.code, err.upstreamStatus],
    [400, 'invalid_request_error', 'provider claude: max_tokens: 100000 > 64000, which is the maximum allowed', 'invalid_request_error', 400],
  );
  const rl = anthropic.errorFor(
    429,
    '{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
    '17',
  );
  t.deepEqual([rl.status, rl.type, rl.code], [429, 'rate_limit_error', 'rate_limit_error']);
  t.deepEqual(rl.headers, { 'retry-after': '17' });
});

test('an unparseable body is quoted (200 characters); an empty one says so', (t) => {
  const html = `<html><head><title>502 Bad Gateway</title></head><body>${'x'.repeat(500)}</body></html>`;
  const err = anthropic.errorFor(503, html);
  t.deepEqual([err.status, err.upstreamStatus, err.code], [502, 503, 'upstream_error']);
  t.true(err.message.startsWith('provider claude failed with HTTP 503: HTTP 503: <html><head><title>502 Bad Gateway</title>'));
  t.true(err.message.endsWith('…'));
  t.is(anthropic.errorFor(502, '').message, 'provider claude failed with HTTP 502: HTTP 502 with an empty body');
  const other = anthropic.errorFor(404, '{"detail":"Not Found"}');
  t.deepEqual([other.status, other.message], [404, 'provider claude: HTTP 404: {"detail":"Not Found"}']);
});

test('gemini 429 RESOURCE_EXHAUSTED (recorded) stays 429 with Google status as code and retry-after from RetryInfo', (t) => {
  const err = gemini.errorFor(429, fixture('gemini/vercel-ai/error.429.resource-exhausted.json'));
  t.deepEqual(
    [err.status, err.type, err.message, err.code, err.upstreamStatus],
    [429, 'rate_limit_error', 'provider google: You exceeded your current quota, please check your plan.', 'RESOURCE_EXHAUSTED', 429],
  );
  t.deepEqual(err.headers, { 'retry-after': '35' });
});

test('gemini: a 5xx becomes 502 with the upstream status and message; a 4xx without RetryInfo has no retry-after', (t) => {
  const err = gemini.errorFor(
    503,
    JSON.stringify({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } }),
  );
  t.deepEqual(err.toJSON(), {
    error: {
      message: 'provider google failed with HTTP 503: The model is overloaded. Please try again later.',
      type: 'upstream_error',
      code: 'upstream_error',
      param: null,
      upstream_status: 503,
      upstream_code: 'UNAVAILABLE',
    },
  });
  const bad = gemini.errorFor(400, JSON.stringify({ error: { code: 400, message: 'Invalid value at contents', status: 'INVALID_ARGUMENT' } }));
  t.deepEqual([bad.status, bad.code, bad.headers], [400, 'INVALID_ARGUMENT', undefined]);
});

test("an upstream refusing gw's own credentials (401/403) is a 502 naming the provider, never the client's 401", (t) => {
  for (const [c, body] of [
    [openai, '{"error":{"message":"Incorrect API key provided: sk-abc***","type":"invalid_request_error","code":"invalid_api_key"}}'],
    [gemini, JSON.stringify({ error: { code: 403, message: 'API key not valid.', status: 'PERMISSION_DENIED' } })],
  ] as const) {
    const err = c.errorFor(body.includes('403') ? 403 : 401, body);
    t.is(err.status, 502);
    t.is(err.code, 'upstream_auth_failed');
    t.regex(err.message, /^provider (oai|google) rejected gw's credentials \(HTTP 40[13]\)/);
    t.true(err.def?.upstream);
  }
});
