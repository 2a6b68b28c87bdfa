/**
 * The request log's filters for the console's drill-down (issue 38, part D): GET /v1/requests
 * with `until`, `tag`, `status` classes, `error_code` and a `request_id` search, each
 * combined with the others; every bad parameter is a 400 naming it, impossible calendar days
 * included; the filters are in /openapi.json.
 */
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { admin, client, gatewayWith, HI, KEY, KEY2, openaiUpstream, post } from '../helpers/ext-helpers.ts';

const KEY3 = 'sk-test-key-untagged-0123456789abcd';
const CONFIG = `[keys.default.tags]
team = "search"
[keys.second.tags]
team = "ml"
constructor = "x"
[keys.untagged]
key = "${KEY3}"
[extensions.request_log]
`;

/** Polls the log until it holds `n` entries (they are written just after each answer). */
async function waitForLog(gw: { url: string }, n: number): Promise<any[]> {
  for (let i = 0; i < 200; i++) {
    const r = await admin(gw, 'GET', '/v1/requests?limit=1000');
    if (r.body.length >= n) return r.body;
    await sleep(20);
  }
  throw new Error(`the log did not reach ${n} entries`);
}

const ids = (r: { body: any[] }) => r.body.map((e) => e.request_id);

test('until, tag, status class, error_code and request_id filter the log, alone and together', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, CONFIG);
  const chatAs = (key: string, id: string, model = 'gpt-4o') =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': id },
      body: JSON.stringify({ model, messages: HI }),
    });
  t.is((await chatAs(KEY, 'search-ok-1')).status, 200);
  t.is((await chatAs(KEY, 'search-missing-1', 'no-such-model')).status, 404);
  await sleep(30);
  const between = Date.now();
  await sleep(30);
  t.is((await chatAs(KEY2, 'ml-ok-1')).status, 200);
  t.is((await chatAs(KEY3, 'Untagged-OK-1')).status, 200);
  t.is((await chatAs('sk-not-a-key-000000000000000000000', 'nobody-1')).status, 401);
  up.handle((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"boom"}}');
  });
  t.is((await chatAs(KEY2, 'ml-fail-1')).status, 502);
  const log = await waitForLog(gw, 6);
  t.is(log.length, 6);

  const get = (q: string) => admin(gw, 'GET', `/v1/requests?${q}`);
  // until: requests that ended before it; with since, [since, until)
  t.deepEqual(ids(await get(`until=${new Date(between).toISOString()}`)), ['search-missing-1', 'search-ok-1']);
  t.deepEqual(ids(await get(`since=${between}&until=${Date.now() + 1000}&status=ok`)), ['Untagged-OK-1', 'ml-ok-1']);
  // tag: the key's tags now; `name:` is keys without it, and requests no key was accepted for
  t.deepEqual(ids(await get('tag=team:ml')), ['ml-fail-1', 'ml-ok-1']);
  t.deepEqual(ids(await get('tag=team:search&status=4xx')), ['search-missing-1']);
  t.deepEqual(ids(await get('tag=team:')), ['nobody-1', 'Untagged-OK-1']);
  t.deepEqual(ids(await get('tag=constructor:x')), ['ml-fail-1', 'ml-ok-1'], 'a tag named like an Object member');
  t.deepEqual(ids(await get('tag=constructor:')).length, 4);
  t.deepEqual(ids(await get('tag=team:nobody')), []);
  // status classes and error codes (as usage's error_codes name them)
  t.deepEqual(ids(await get('status=5xx')), ['ml-fail-1']);
  t.deepEqual(ids(await get('status=error')), ['ml-fail-1', 'nobody-1', 'search-missing-1']);
  t.deepEqual(ids(await get('error_code=model_not_found')), ['search-missing-1']);
  t.deepEqual(ids(await get('error_code=upstream_error&key=second')), ['ml-fail-1']);
  t.deepEqual(ids(await get('error_code=upstream_error&key=default')), []);
  // key=(unauthenticated): the requests usage counts under that name (null in the log)
  t.deepEqual(ids(await get('key=(unauthenticated)')), ['nobody-1']);
  // request id: a part of it, any case
  t.deepEqual(ids(await get('request_id=untagged')), ['Untagged-OK-1']);
  t.deepEqual(ids(await get('request_id=OK-1')), ['Untagged-OK-1', 'ml-ok-1', 'search-ok-1']);
  t.deepEqual(ids(await get('request_id=ok-1&tag=team:search')), ['search-ok-1']);
  t.deepEqual(ids(await get('request_id=ok&limit=2')), ['Untagged-OK-1', 'ml-ok-1']);
});

test('every bad parameter of GET /v1/requests is a 400 naming it and what it takes', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, CONFIG);
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  for (const [q, param, says] of [
    ['limit=0', 'limit', /1 to 1000/],
    ['limit=99999999999999999999', 'limit', /1 to 1000/],
    ['status=teapot', 'status', /class \(4xx, 5xx\)/],
    ['status=6xx', 'status', /class/],
    ['since=soon', 'since', /RFC 3339/],
    ['until=2026-02-30', 'until', /real calendar date/],
    ['since=2026-13-01T00:00:00Z', 'since', /real calendar date/],
    ['until=2026-04-31', 'until', /real calendar date/],
    ['since=2026-01-02&until=2026-01-01', 'until', /after 'since'/],
    ['since=2026-01-01&until=2026-01-01', 'until', /after 'since'/],
    ['tag=team', 'tag', /<name>:<value>/],
    ['tag=te%20am:x', 'tag', /<name>:<value>/],
    [`tag=team:${'v'.repeat(257)}`, 'tag', /<name>:<value>/],
    ['error_code=no%20such', 'error_code', /error code/],
    ['request_id=a%20b', 'request_id', /part of a request id/],
    [`request_id=${'a'.repeat(129)}`, 'request_id', /1-128/],
    [`model=${'m'.repeat(257)}`, 'model', /at most 256/],
    ['key=a&key=b', 'key', /more than once/],
    ['stauts=5xx', 'stauts', /not one of limit, key/],
  ] as const) {
    const r = await admin(gw, 'GET', `/v1/requests?${q}`);
    t.is(r.status, 400, q);
    t.is(r.body.error.code, 'invalid_query', q);
    t.is(r.body.error.param, param, q);
    t.regex(r.body.error.message, says, q);
    t.true(r.body.error.message.length < 400, `${q}: the value is quoted cut (${r.body.error.message.length} characters)`);
  }
  // a real leap day is a date
  t.is((await admin(gw, 'GET', '/v1/requests?since=2024-02-29&until=2024-03-01T00:00:00%2B01:00')).status, 200);
  // the gateway kept serving and counting
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, KEY)).status, 200);
});

test('/openapi.json documents the request log filters', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, CONFIG);
  const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as any;
  const op = doc.paths['/v1/requests'].get;
  t.deepEqual(
    op.parameters.map((p: any) => p.name),
    ['limit', 'key', 'model', 'provider', 'route', 'status', 'error_code', 'tag', 'request_id', 'since', 'until'],
  );
  t.true(op.parameters.every((p: any) => p.in === 'query' && typeof p.description === 'string'));
  t.truthy(op.responses['400']);
  t.deepEqual(op.security, [{ admin: [] }]);
});
