import test from 'ava';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { setTimeout as sleep } from 'node:timers/promises';
import { baseConfig, startGateway } from '../helpers/gateway.ts';
import { fixture, startUpstream } from '../helpers/upstream.ts';
import { client, gatewayWith, HI, KEY, KEY2, openaiUpstream, post, json } from '../helpers/ext-helpers.ts';

test('rate_limit: 429 with retry-after and the OpenAI error shape past requests_per_minute; another key is unaffected; refused requests never reach the upstream', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.rate_limit]\nrequests_per_minute = 3\n');
  const c = client(gw);
  for (let i = 0; i < 3; i++) await c.chat.completions.create({ model: 'gpt-4o', messages: HI });
  const err = await t.throwsAsync(c.chat.completions.create({ model: 'gpt-4o', messages: HI }), { instanceOf: OpenAI.RateLimitError });
  t.is(err!.status, 429);
  const r = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI });
  t.is(r.status, 429);
  const ra = Number(r.headers.get('retry-after'));
  t.true(Number.isInteger(ra) && ra >= 1 && ra <= 60, `retry-after ${ra}`);
  const body = await json(r);
  t.is(body.error.type, 'rate_limit_error');
  t.is(body.error.code, 'rate_limit_exceeded');
  t.is(typeof body.error.message, 'string');
  t.false(JSON.stringify(body).includes(KEY));
  t.is(up.received.length, 3);
  // the second key has its own window
  await client(gw, KEY2).chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is(up.received.length, 4);
  // embeddings count against the same window
  t.is((await post(gw, '/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' })).status, 429);
});

test('rate_limit: exact under concurrency — 40 parallel requests, exactly requests_per_minute admitted', async (t) => {
  const up = await openaiUpstream({ delayMs: 50 });
  const gw = await gatewayWith(t, up, '[extensions.rate_limit]\nrequests_per_minute = 7\n');
  const statuses = await Promise.all(
    Array.from({ length: 40 }, () =>
      post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      }),
    ),
  );
  t.is(statuses.filter((s) => s === 200).length, 7);
  t.is(statuses.filter((s) => s === 429).length, 33);
  t.is(up.received.length, 7);
});

test('rate_limit: the window slides — admitted again once the oldest request left it; retry-after says when', async (t) => {
  const up = await openaiUpstream();
  // a 4 s window: on a loaded 2-core machine (the whole suite at once) a request can take a
  // good part of a second, and 1.6 s left too little room
  const gw = await gatewayWith(t, up, '[extensions.rate_limit]\nrequests_per_minute = 2\nwindow_seconds = 4\n');
  const send = () =>
    post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }).then(async (r) => {
      await r.arrayBuffer();
      return r;
    });
  // waits are measured from the client's clock: the first request was admitted before
  // `firstDone`, the second after `secondSent`
  t.is((await send()).status, 200);
  const firstDone = Date.now();
  await sleep(2000);
  const secondSent = Date.now();
  t.is((await send()).status, 200);
  const refused = await send();
  t.is(refused.status, 429);
  // the first leaves the window ~2 s from now: rounded up to whole seconds (1 if this machine was slow)
  t.true(['1', '2'].includes(refused.headers.get('retry-after') ?? ''), `retry-after ${refused.headers.get('retry-after')}`);
  await sleep(firstDone + 4000 + 20 - Date.now()); // the first left the window, the second has not
  t.is((await send()).status, 200);
  t.is((await send()).status, 429);
  t.true(Date.now() < secondSent + 4000, 'too slow to observe the second request still in the window');
  t.is(up.received.length, 3);
});

test('rate_limit: tokens_per_minute counts streamed usage (client did not ask for usage), then refuses; other key unaffected', async (t) => {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 30, completion_tokens: 25 }) });
  const gw = await gatewayWith(t, up, '[extensions.rate_limit]\nrequests_per_minute = 100\ntokens_per_minute = 100\n');
  const c = client(gw);
  const stream = async (cl: OpenAI) => {
    const s = await cl.chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true });
    for await (const ch of s) t.falsy(ch.usage);
  };
  await stream(c); // 55
  await stream(c); // 110 >= 100
  const r = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI });
  t.is(r.status, 429);
  t.regex((await json(r)).error.message, /tokens/);
  const ra = Number(r.headers.get('retry-after'));
  t.true(ra >= 1 && ra <= 60);
  t.is(up.received.length, 2);
  await stream(client(gw, KEY2));
  t.is(up.received.length, 3);
});

test('rate_limit: tokens of a stream in flight count from its usage events (Messages passthrough), before it ends', async (t) => {
  const sse = fixture('anthropic/anthropic-sdk-typescript/basic.sse'); // input 11, output 1 then 6
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const up = await startUpstream(async (_req, res) => {
    // every event up to message_delta (usage 11 + 6), then the stream stays open until released
    const events = sse.split('\n\n').filter((e) => e.trim());
    const cut = events.findIndex((e) => e.includes('"message_delta"')) + 1;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const e of events.slice(0, cut)) res.write(`${e}\n\n`);
    await gate;
    for (const e of events.slice(cut)) res.write(`${e}\n\n`);
    res.end();
  });
  const gw = await startGateway(
    baseConfig(
      `[providers.anthropic]\napi_key = "sk-ant-upstream"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["claude-x"]\n\n[extensions.rate_limit]\nrequests_per_minute = 100\ntokens_per_minute = 15\n`,
    ),
  );
  t.teardown(async () => {
    release();
    await gw.stop();
    await up.close();
  });
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 });
  const s = anthropic.messages.stream({ model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
  const seen = new Promise<void>((resolve) =>
    s.on('streamEvent', (e) => {
      if (e.type === 'message_delta') resolve();
    }),
  );
  await seen;
  // 17 tokens reported so far by a stream still open: the next request is refused
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-x', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  t.is(r.status, 429);
  const body = await json(r);
  t.is(body.type, 'error');
  t.is(body.error.type, 'rate_limit_error');
  release();
  const final = await s.finalMessage();
  t.is(final.usage.output_tokens, 6);
  t.is(up.received.length, 1);
});
