/**
 * Foundation: every error status of the chat route, each in the OpenAI error shape
 * `{"error": {message, type, code, param}}`, and no secret in any error body or log line
 * (captured at trace level).
 */
import test from 'ava';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, baseConfig, KEY, KEY2, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, startUpstream, type MockUpstream } from '../helpers/upstream.ts';

const UP_KEY = 'sk-upstream-secret-abcdef0123456789';
const DEAD_KEY = 'sk-dead-secret-abcdef0123456789';
const OK = fixture('openai/spec-examples/chat.default.response.json');

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

interface Setup {
  gw: TestGateway;
  up: MockUpstream;
  /** Every error body received, for the secrets check. */
  bodies: string[];
  post(
    body: string | object,
    headers?: Record<string, string>,
    path?: string,
  ): Promise<{ status: number; error: Record<string, unknown>; text: string; headers: Headers }>;
}

/**
 * gw with providers: `up` (gpt-4o, gpt-4o-mini, broken-model, refused-model, limited-model, keyless-model),
 * `slow` (same upstream, timeout 0.3 s: slow-model) and `dead` (closed port: dead-model).
 */
async function setup(t: import('ava').ExecutionContext, level: 'warn' | 'trace' = 'warn'): Promise<Setup> {
  const up = await startUpstream((r, res) => {
    switch (r.json?.model) {
      case 'broken-model':
        return replyJson(res, 500, {
          error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null },
        });
      case 'refused-model':
        return replyJson(res, 400, fixture('openai/vercel-ai/error.400.unsupported-parameter.json'));
      case 'limited-model':
        return replyJson(
          res,
          429,
          { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
          { 'retry-after': '20' },
        );
      case 'keyless-model':
        return replyJson(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
      case 'slow-model':
        return; // never answers; the gateway's timeout must fire
      default:
        return replyJson(res, 200, OK);
    }
  });
  t.teardown(() => up.close());
  const port = await closedPort();
  // top-level keys go before baseConfig's tables
  const gw = await startGateway(
    `max_body_bytes = 4096\n${baseConfig(`[providers.up]
api_key = "${UP_KEY}"
base_url = "${up.origin}/v1"
models = ["gpt-4o", "gpt-4o-mini", "broken-model", "refused-model", "limited-model", "keyless-model"]
max_retries = 0

[providers.slow]
kind = "openai"
api_key = "${UP_KEY}"
base_url = "${up.origin}/v1"
models = ["slow-model"]
timeout_seconds = 0.3
max_retries = 0

[providers.dead]
kind = "openai"
api_key = "${DEAD_KEY}"
base_url = "http://127.0.0.1:${port}/v1"
models = ["dead-model"]
max_retries = 0
`)}`,
    { level },
  );
  t.teardown(() => gw.stop());
  const bodies: string[] = [];
  return {
    gw,
    up,
    bodies,
    async post(body, headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, path = '/v1/chat/completions') {
      const r = await fetch(`${gw.url}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
      const text = await r.text();
      bodies.push(text);
      let error: Record<string, unknown> = {};
      try {
        error = (JSON.parse(text) as { error: Record<string, unknown> }).error;
      } catch {
        // asserted by the caller
      }
      return { status: r.status, error, text, headers: r.headers };
    },
  };
}

/** Asserts the OpenAI error shape. */
function shape(t: import('ava').ExecutionContext, e: Record<string, unknown>): void {
  t.is(typeof e.message, 'string');
  t.true((e.message as string).length > 0);
  t.is(typeof e.type, 'string');
  t.true('code' in e && (e.code === null || typeof e.code === 'string'));
  t.true('param' in e && (e.param === null || typeof e.param === 'string'));
}

const msg = (content = 'hi', model = 'gpt-4o') => ({ model, messages: [{ role: 'user', content }] });

test('400: an invalid field is named (message and param)', async (t) => {
  const s = await setup(t);
  const cases: Array<[object, string]> = [
    [{ model: 'gpt-4o', messages: 'hi' }, 'messages'],
    [{ messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    [{ model: 'gpt-4o', messages: [{ content: 'hi' }] }, 'messages[0].role'],
    [{ ...msg(), stream: 'yes' }, 'stream'],
    [{ ...msg(), temperature: 'hot' }, 'temperature'],
  ];
  for (const [body, param] of cases) {
    const r = await s.post(body);
    t.is(r.status, 400, param);
    shape(t, r.error);
    t.is(r.error.param, param);
    t.true((r.error.message as string).includes(param), r.error.message as string);
    t.is(r.error.type, 'invalid_request_error');
  }
  t.is(s.up.received.length, 0);
});

test('400: a JSON body that is not an object, and malformed JSON', async (t) => {
  const s = await setup(t);
  for (const body of ['[1,2]', '"text"', '42', 'null']) {
    const r = await s.post(body);
    t.is(r.status, 400, body);
    shape(t, r.error);
  }
  const bad = await s.post('{"model": "gpt-4o", "messages": [');
  t.is(bad.status, 400);
  shape(t, bad.error);
  t.regex(bad.error.message as string, /JSON/);
  t.is(s.up.received.length, 0);
});

test('401: missing key, unknown key, the admin token used as a gateway key', async (t) => {
  const s = await setup(t);
  const missing = await s.post(msg(), { 'content-type': 'application/json' });
  t.is(missing.status, 401);
  shape(t, missing.error);
  t.is(missing.error.type, 'authentication_error');
  const unknown = await s.post(msg(), { authorization: 'Bearer sk-not-a-key-0123456789abcdef', 'content-type': 'application/json' });
  t.is(unknown.status, 401);
  shape(t, unknown.error);
  t.false(unknown.text.includes('sk-not-a-key'));
  const admin = await s.post(msg(), { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' });
  t.is(admin.status, 401);
  shape(t, admin.error);
  t.regex(admin.error.message as string, /admin token/);
  t.false(admin.text.includes(ADMIN_TOKEN));
  // the second key works
  t.is((await s.post(msg(), { authorization: `Bearer ${KEY2}`, 'content-type': 'application/json' })).status, 200);
  t.is(s.up.received.length, 1);
});

// 403 needs an admin route; /v1/admin/* arrives with the admin issue (server/admin/)
const hasAdminRoutes = existsSync(fileURLToPath(new URL('../../server/admin/', import.meta.url)));
(hasAdminRoutes ? test : test.skip)('403: a gateway key on an admin route', async (t) => {
  const s = await setup(t);
  const r = await fetch(`${s.gw.url}/v1/admin/keys`, { headers: { authorization: `Bearer ${KEY}` } });
  t.is(r.status, 403);
  shape(t, ((await r.json()) as { error: Record<string, unknown> }).error);
  t.is((await fetch(`${s.gw.url}/v1/admin/keys`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status, 200);
});

test('404: unknown model names it and close matches; unknown route', async (t) => {
  const s = await setup(t);
  const r = await s.post(msg('hi', 'gpt-4o-mni'));
  t.is(r.status, 404);
  shape(t, r.error);
  t.is(r.error.code, 'model_not_found');
  t.is(r.error.param, 'model');
  t.true((r.error.message as string).includes("'gpt-4o-mni'"));
  t.true((r.error.message as string).includes("'gpt-4o-mini'"));
  const none = await s.post(msg('hi', 'zzzzzzzzzzzzzzzz'));
  t.is(none.status, 404);
  t.false((none.error.message as string).includes('did you mean'));
  const route = await fetch(`${s.gw.url}/v1/nope`, { headers: { authorization: `Bearer ${KEY}` } });
  t.is(route.status, 404);
  shape(t, ((await route.json()) as { error: Record<string, unknown> }).error);
  t.is(s.up.received.length, 0);
});

test('413: a body over max_body_bytes; 415: a non-JSON content type', async (t) => {
  const s = await setup(t);
  const big = await s.post(msg('x'.repeat(5000)));
  t.is(big.status, 413);
  shape(t, big.error);
  const justUnder = await s.post(msg('x'.repeat(3900)));
  t.is(justUnder.status, 200);
  const text = await s.post(JSON.stringify(msg()), { authorization: `Bearer ${KEY}`, 'content-type': 'text/plain' });
  t.is(text.status, 415);
  shape(t, text.error);
  t.regex(text.error.message as string, /application\/json/);
  const none = await fetch(`${s.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
    body: new Blob([JSON.stringify(msg())]),
  });
  t.is(none.status, 415);
  t.is(s.up.received.length, 1);
});

test('upstream 4xx passes on with its status and message (429 with retry-after)', async (t) => {
  const s = await setup(t);
  const refused = await s.post(msg('hi', 'refused-model'));
  t.is(refused.status, 400);
  shape(t, refused.error);
  t.regex(refused.error.message as string, /Unsupported parameter: 'max_tokens'/);
  t.is(refused.error.param, 'max_tokens');
  const limited = await s.post(msg('hi', 'limited-model'));
  t.is(limited.status, 429);
  shape(t, limited.error);
  t.is(limited.headers.get('retry-after'), '20');
});

test('502: upstream 500 (its status and message kept) and an unreachable upstream', async (t) => {
  const s = await setup(t);
  const broken = await s.post(msg('hi', 'broken-model'));
  t.is(broken.status, 502);
  shape(t, broken.error);
  t.regex(broken.error.message as string, /500.*The server had an error/);
  t.is(broken.error.upstream_status, 500);
  const dead = await s.post(msg('hi', 'dead-model'));
  t.is(dead.status, 502);
  shape(t, dead.error);
  t.regex(dead.error.message as string, /unreachable/);
  t.false(dead.text.includes(DEAD_KEY));
});

test('x-should-retry: false where repeating the request cannot help; none where the SDKs retry by their own rules', async (t) => {
  const s = await setup(t);
  const never = {
    '400 invalid body': await s.post({ model: 'gpt-4o', messages: 7 }),
    '400 from the upstream': await s.post(msg('hi', 'refused-model')),
    '401 unknown key': await s.post(msg(), { authorization: 'Bearer sk-no-such-key-000000000000000000', 'content-type': 'application/json' }),
    '404 unknown model': await s.post(msg('hi', 'no-such-model')),
    '415 not JSON': await s.post('hi', { authorization: `Bearer ${KEY}`, 'content-type': 'text/plain' }),
    // the provider's key is wrong: a 502, which SDKs (and Claude Code, for minutes) would retry
    '502 upstream_auth_failed': await s.post(msg('hi', 'keyless-model')),
  };
  for (const [what, r] of Object.entries(never)) {
    t.true(r.status >= 400, what);
    t.is(r.headers.get('x-should-retry'), 'false', what);
  }
  t.is(never['502 upstream_auth_failed'].status, 502);
  t.is(never['502 upstream_auth_failed'].error.code, 'upstream_auth_failed');
  const retried = {
    '429 from the upstream': await s.post(msg('hi', 'limited-model')),
    '502 upstream 500': await s.post(msg('hi', 'broken-model')),
    '502 unreachable': await s.post(msg('hi', 'dead-model')),
  };
  for (const [what, r] of Object.entries(retried)) t.is(r.headers.get('x-should-retry'), null, what);
  t.is(retried['429 from the upstream'].status, 429);
});

test('504: an upstream slower than timeout_seconds; the upstream request is closed', async (t) => {
  const s = await setup(t);
  const t0 = performance.now();
  const r = await s.post(msg('hi', 'slow-model'));
  const ms = performance.now() - t0;
  t.is(r.status, 504);
  shape(t, r.error);
  t.is(r.error.type, 'timeout_error');
  // the upstream never answers: any bound proves the timeout fired (0.3 s; a busy machine adds seconds, wrong units minutes)
  t.true(ms >= 250 && ms < 5000, `${ms} ms`);
  const deadline = Date.now() + 1000;
  while (s.up.aborted.length === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
  t.is(s.up.aborted.length, 1);
});

test('no secret in error bodies or logs, at trace level', async (t) => {
  const s = await setup(t, 'trace');
  await s.post(msg());
  await s.post(msg(), { authorization: `Bearer ${KEY2}`, 'content-type': 'application/json' });
  await s.post(msg(), { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' });
  await s.post(msg(), { authorization: 'Bearer sk-typo-of-a-key-0123456789', 'content-type': 'application/json' });
  await s.post(msg('hi', 'broken-model'));
  await s.post(msg('hi', 'dead-model'));
  await s.post(msg('hi', 'slow-model'));
  await s.post(msg('hi', 'gpt-4o-mni'));
  await s.post('{bad');
  await s.post({ ...msg(), stream: true });
  await fetch(`${s.gw.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
  const logs = s.gw.logs.join('');
  t.true(logs.length > 0);
  t.regex(logs, /"provider call"/);
  const all = logs + s.bodies.join('\n');
  for (const secret of [UP_KEY, DEAD_KEY, KEY, KEY2, ADMIN_TOKEN, 'sk-typo-of-a-key-0123456789'])
    t.false(all.includes(secret), `leaked ${secret.slice(0, 8)}…`);
  // with the upstream auth header in the received requests, so the secret did exist on the wire
  t.is(s.up.received[0]!.headers.authorization, `Bearer ${UP_KEY}`);
});
