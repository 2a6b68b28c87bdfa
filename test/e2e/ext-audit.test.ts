import test from 'ava';
import { findPlugin } from '../../core/plugins/loader.ts';
import { admin, client, gatewayWith, HI, openaiUpstream, post, json } from '../helpers/ext-helpers.ts';

test('gw-plugin-audit is found in node_modules (not built in) and checked against the contract', async (t) => {
  const found = await findPlugin('extension', 'audit');
  t.is(found?.source, 'npm');
  t.is(found?.module, 'gw-plugin-audit');
  t.is(found?.plugin.name, 'audit');
});

test('[extensions.audit] taps every hook, counts into its own store namespace, mounts its admin route', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.audit]\n');
  const c = client(gw);
  await c.chat.completions.create({ model: 'gpt-4o', messages: HI });
  const s = await c.chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true });
  let chunks = 0;
  let chars = 0;
  for await (const c of s) {
    chunks++;
    chars += c.choices[0]?.delta.content?.length ?? 0;
  }
  up.handle((_req, res) => {
    res.writeHead(500);
    res.end('{}');
  });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 502);
  const r = await admin(gw, 'GET', '/v1/audit');
  t.is(r.status, 200);
  // every chunk that reached the client passed onChunk (the usage chunk is not forwarded here but was seen),
  // typed: the plugin read the text of the chat chunks through the SDK's Chunk union
  t.deepEqual(r.body.hooks, { onRequest: 3, onCacheLookup: 2, onResponse: 2, onChunk: chunks + 1, onError: 1, chars });
  t.true(chars > 0);
  t.like(r.body.last.default, { model: 'gpt-4o', status: 200 });
  // its keys live under ext:audit: in the shared store
  const keys: string[] = [];
  for await (const [k] of gw.running.gateway.store.entries('ext:audit:')) keys.push(k);
  t.deepEqual(keys.sort(), ['ext:audit:hooks', 'ext:audit:last:default']);
  t.is((await admin(gw, 'GET', '/v1/audit', 'sk-test-key-default-0123456789abcdef')).status, 403);
});

test('hooks run in [extensions.*] config order, third-party and built-in alike', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.rate_limit]\nrequests_per_minute = 1\n\n[extensions.audit]\n\n[extensions.usage]\n\n[extensions.logging]\n');
  const hooks = gw.running.gateway.hooks;
  t.deepEqual(
    hooks.onRequest.taps.map((x) => x.name),
    ['rate_limit', 'audit'],
  );
  // rate_limit taps onResponse/onError even without tokens_per_minute: any key may be given one at runtime
  t.deepEqual(
    hooks.onResponse.taps.map((x) => x.name),
    ['rate_limit', 'audit', 'usage', 'logging'],
  );
  t.deepEqual(
    hooks.onError.taps.map((x) => x.name),
    ['rate_limit', 'audit', 'usage', 'logging'],
  ); // usage counts failures per hour
  // behaviourally: rate_limit (first) refuses the second request before audit's onRequest runs
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 429);
  t.like((await admin(gw, 'GET', '/v1/audit')).body.hooks, { onRequest: 1, onResponse: 1, onError: 1 });
});

test('audit before rate_limit: its onRequest runs for the refused request too', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.audit]\n\n[extensions.rate_limit]\nrequests_per_minute = 1\n');
  t.deepEqual(
    gw.running.gateway.hooks.onRequest.taps.map((x) => x.name),
    ['audit', 'rate_limit'],
  );
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 429);
  t.like((await admin(gw, 'GET', '/v1/audit')).body.hooks, { onRequest: 2, onError: 1 });
});

test('an early response from a later tap ends the request through onResponse: the budget hold of an earlier tap is released, nothing upstream', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(
    t,
    up,
    '[pricing."gpt-4o"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n\n[extensions.budget]\ndefault_budget = 1\n\n[extensions.audit]\ndeny_model = "gpt-4o"\n\n[extensions.usage]\n',
  );
  const r = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI });
  t.is(r.status, 451);
  t.is((await json(r)).error.code, 'audit_denied');
  t.is(up.received.length, 0);
  t.like((await admin(gw, 'GET', '/v1/budget')).body[0], { key: 'default', spent_usd: 0, reserved_usd: 0 });
  t.deepEqual((await admin(gw, 'GET', '/v1/usage')).body, []);
  t.like((await admin(gw, 'GET', '/v1/audit')).body.hooks, { onRequest: 1, onResponse: 1 });
});
