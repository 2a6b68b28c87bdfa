import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { KEY2 } from '../helpers/gateway.ts';
import { admin, client, gatewayWith, HI, KEY, openaiUpstream, post } from '../helpers/ext-helpers.ts';

test('cache: miss then hit for the same body bytes, shared across keys; the upstream is called once', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.cache]\n');
  const body = JSON.stringify({ model: 'gpt-4o', messages: HI });
  const first = await post(gw, '/v1/chat/completions', body);
  t.is(first.status, 200);
  t.is(first.headers.get('x-gw-cache'), 'miss');
  const firstText = await first.text();
  const second = await post(gw, '/v1/chat/completions', body, KEY2);
  t.is(second.headers.get('x-gw-cache'), 'hit');
  t.is(await second.text(), firstText);
  t.is(up.received.length, 1);
  // the openai client sends different bytes (its own serialization): one more miss, then hits
  const c = client(gw);
  const a = await c.chat.completions.create({ model: 'gpt-4o', messages: HI }).withResponse();
  const b = await c.chat.completions.create({ model: 'gpt-4o', messages: HI }).withResponse();
  t.is(b.response.headers.get('x-gw-cache'), 'hit');
  t.deepEqual(b.data.choices, a.data.choices);
  t.is(up.received.length, a.response.headers.get('x-gw-cache') === 'miss' ? 2 : 1);
  // a different body is a different entry
  const other = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'other' }] });
  t.is(other.headers.get('x-gw-cache'), 'miss');
});

test('cache: entries expire after ttl_seconds', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.cache]\nttl_seconds = 0.8\n');
  const body = { model: 'gpt-4o', messages: HI };
  const sent = Date.now(); // the entry was written after this
  t.is((await post(gw, '/v1/chat/completions', body)).headers.get('x-gw-cache'), 'miss');
  const written = Date.now(); // ... and before this
  // the entry expires 800 ms after its write, somewhere in [sent, written]; the lookup happens
  // somewhere in [before, after]: only the certain outcomes are asserted (a loaded machine may be slow)
  const before = Date.now();
  const second = (await post(gw, '/v1/chat/completions', body)).headers.get('x-gw-cache');
  const after = Date.now();
  if (after < sent + 800) t.is(second, 'hit');
  else if (before > written + 800) t.is(second, 'miss');
  await sleep(written + 800 + 20 - Date.now());
  t.is((await post(gw, '/v1/chat/completions', body)).headers.get('x-gw-cache'), 'miss');
  t.true(up.received.length >= 2);
});

test('cache: DELETE /v1/cache (admin) clears every entry with 204; a gateway key gets 403', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.cache]\n');
  const body = { model: 'gpt-4o', messages: HI };
  await post(gw, '/v1/chat/completions', body);
  t.is((await post(gw, '/v1/chat/completions', body)).headers.get('x-gw-cache'), 'hit');
  const denied = await admin(gw, 'DELETE', '/v1/cache', KEY);
  t.is(denied.status, 403);
  t.is((await post(gw, '/v1/chat/completions', body)).headers.get('x-gw-cache'), 'hit');
  const cleared = await admin(gw, 'DELETE', '/v1/cache');
  t.is(cleared.status, 204);
  t.is((await post(gw, '/v1/chat/completions', body)).headers.get('x-gw-cache'), 'miss');
  t.is(up.received.length, 2);
});

test('cache: a stream is never cached nor served from cache', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.cache]\n');
  const c = client(gw);
  for (let i = 0; i < 2; i++) {
    const s = await c.chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true }).withResponse();
    t.is(s.response.headers.get('x-gw-cache'), null);
    let text = '';
    for await (const ch of s.data) text += ch.choices[0]?.delta?.content ?? '';
    t.true(text.length > 0);
  }
  t.is(up.received.length, 2);
});

test('cache: a failed upstream answer is not cached; errors are not served as hits', async (t) => {
  const up = await openaiUpstream();
  let fail = true;
  up.handle(async (req, res) => {
    if (fail) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'bad', type: 'invalid_request_error', code: null, param: null } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: req.json.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
  const gw = await gatewayWith(t, up, '[extensions.cache]\n');
  const body = { model: 'gpt-4o', messages: HI };
  t.is((await post(gw, '/v1/chat/completions', body)).status, 400);
  fail = false;
  const r = await post(gw, '/v1/chat/completions', body);
  t.is(r.status, 200);
  t.is(r.headers.get('x-gw-cache'), 'miss');
  t.is((await post(gw, '/v1/chat/completions', body)).headers.get('x-gw-cache'), 'hit');
  t.is(up.received.length, 2);
});
