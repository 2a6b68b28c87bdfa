import test from 'ava';
import OpenAI from 'openai';
import { chatCompletion } from '../helpers/completion.ts';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { replyJson, replySse, startUpstream, toSse, type MockUpstream } from '../helpers/upstream.ts';

const completion = (content: string) => chatCompletion(content);
const chunk = (content: string | null, finish: string | null = null) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }],
});
const provider = (name: string, up: MockUpstream | string, models: string[], extra = '') =>
  `[providers.${name}]\napi_key = "sk-${name}"\nbase_url = "${typeof up === 'string' ? up : up.origin}/v1"\nmodels = ${JSON.stringify(models)}\n${extra}\n`;
const post = (url: string, body: unknown) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const msg = [{ role: 'user', content: 'hi' }];

test('a 500 then success is retried once on the same provider and answers 200', async (t) => {
  let n = 0;
  const up = await startUpstream((_r, res) => (n++ === 0 ? replyJson(res, 500, { error: { message: 'boom' } }) : replyJson(res, 200, completion('ok'))));
  const gw = await startGateway(baseConfig(provider('a', up, ['m'])));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const res = await post(gw.url, { model: 'm', messages: msg });
  t.is(res.status, 200);
  t.is(((await res.json()) as any).choices[0].message.content, 'ok');
  t.is(up.received.length, 2);
  t.is(res.headers.get('x-gw-attempts'), '2');
  t.is(res.headers.get('x-gw-provider'), 'a');
});

test('a 400 from the upstream is not retried', async (t) => {
  const up = await startUpstream((_r, res) => replyJson(res, 400, { error: { message: 'bad temperature', param: 'temperature', code: 'invalid_value' } }));
  const gw = await startGateway(baseConfig(provider('a', up, ['m'])));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const res = await post(gw.url, { model: 'm', messages: msg });
  t.is(res.status, 400);
  t.regex(((await res.json()) as any).error.message, /bad temperature/);
  t.is(up.received.length, 1);
});

test('connection refused on the first provider of a group is served by the second', async (t) => {
  const up = await startUpstream((_r, res) => replyJson(res, 200, completion('from b')));
  const dead = await startUpstream(() => undefined);
  const deadOrigin = dead.origin;
  await dead.close();
  const gw = await startGateway(baseConfig(provider('a', deadOrigin, ['m'], 'max_retries = 0') + provider('b', up, ['m'])));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 });
  for (let i = 0; i < 4; i++) {
    const r = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    t.is(r.choices[0]!.message.content, 'from b');
  }
});

test('a timeout moves to the fallback model without retrying the same provider', async (t) => {
  const slow = await startUpstream(async (_r, res) => {
    await new Promise((r) => setTimeout(r, 1500));
    if (!res.destroyed) replyJson(res, 200, completion('late'));
  });
  const fast = await startUpstream((r, res) => replyJson(res, 200, { ...completion('fallback'), model: r.json.model }));
  const gw = await startGateway(
    baseConfig(`${provider('slow', slow, ['big'], 'timeout_seconds = 0.3') + provider('fast', fast, ['small'])}[fallbacks]\nbig = ["small"]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await slow.close();
    await fast.close();
  });
  const res = await post(gw.url, { model: 'big', messages: msg });
  t.is(res.status, 200);
  // the fallback's answer, not the slow one's late 'late': gw gave up at the timeout
  t.is(((await res.json()) as any).choices[0].message.content, 'fallback');
  t.is(slow.aborted.length, 1, 'the timed-out upstream request was closed');
  t.is(slow.received.length, 1, 'timeout not retried on the same provider');
  t.is(fast.received[0]!.json.model, 'small', 'fallback upstream got the fallback model');
  t.is(res.headers.get('x-gw-provider'), 'fast');
});

test('without a fallback a timeout answers 504', async (t) => {
  const slow = await startUpstream(async (_r, res) => {
    await new Promise((r) => setTimeout(r, 1000));
    if (!res.destroyed) replyJson(res, 200, completion('late'));
  });
  const gw = await startGateway(baseConfig(provider('slow', slow, ['big'], 'timeout_seconds = 0.2')));
  t.teardown(async () => {
    await gw.stop();
    await slow.close();
  });
  const res = await post(gw.url, { model: 'big', messages: msg });
  t.is(res.status, 504);
  t.is(((await res.json()) as any).error.type, 'timeout_error');
});

test('a 429 with a short retry-after is honoured and retried; a long one is answered at once', async (t) => {
  let n = 0;
  const up = await startUpstream((r, res) => {
    if (r.json.messages[0].content === 'long') return replyJson(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '30' });
    return n++ === 0 ? replyJson(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '1' }) : replyJson(res, 200, completion('ok'));
  });
  const gw = await startGateway(baseConfig(provider('a', up, ['m'])));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const t0 = performance.now();
  const res = await post(gw.url, { model: 'm', messages: msg });
  const waited = performance.now() - t0;
  t.is(res.status, 200);
  t.true(waited >= 950, `waited ${waited} ms for retry-after: 1`);
  const long = await post(gw.url, { model: 'm', messages: [{ role: 'user', content: 'long' }] });
  t.is(long.status, 429);
  t.is(long.headers.get('retry-after'), '30');
});

test('an error event before the first chunk falls over to the next provider; a mid-stream cut is an SSE error and never retried', async (t) => {
  const bad = await startUpstream((_r, res) => replySse(res, toSse([{ error: { message: 'overloaded', code: 'overloaded' } }], false)));
  const good = await startUpstream((_r, res) => replySse(res, toSse([chunk('he'), chunk('llo'), chunk(null, 'stop')])));
  const cut = await startUpstream((_r, res) => replySse(res, toSse([chunk('he'), chunk('llo'), chunk(' world')], false), { cutAfter: 2, delayMs: 20 }));
  const gw = await startGateway(baseConfig(provider('bad', bad, ['m'], 'max_retries = 0') + provider('good', good, ['m']) + provider('cut', cut, ['c'])));
  t.teardown(async () => {
    await gw.stop();
    await bad.close();
    await good.close();
    await cut.close();
  });
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 });
  for (let i = 0; i < 2; i++) {
    const s = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const c of s) text += c.choices[0]?.delta?.content ?? '';
    t.is(text, 'hello');
  }
  const res = await post(gw.url, { model: 'c', messages: msg, stream: true });
  t.is(res.status, 200);
  const body = await res.text();
  const events = body.split('\n\n').filter(Boolean);
  t.is(events.filter((e) => e.includes('"error"')).length, 1);
  t.true(events.at(-1)!.includes('"error"'), 'the error event is the last one');
  t.false(body.includes('[DONE]'));
  t.is(cut.received.length, 1, 'no retry after the first byte');
});

test('the circuit opens after N consecutive failures and closes after the cooldown', async (t) => {
  let failing = true;
  const up = await startUpstream((_r, res) => (failing ? replyJson(res, 503, { error: { message: 'down' } }) : replyJson(res, 200, completion('up again'))));
  const gw = await startGateway(baseConfig(`${provider('a', up, ['m'], 'max_retries = 0')}[routing]\nbreaker_failures = 3\nbreaker_cooldown_seconds = 0.4\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  for (let i = 0; i < 3; i++) t.is((await post(gw.url, { model: 'm', messages: msg })).status, 502);
  t.is(up.received.length, 3);
  const open = await post(gw.url, { model: 'm', messages: msg });
  t.is(open.status, 503);
  t.is(((await open.json()) as any).error.code, 'circuit_open');
  t.is(up.received.length, 3, 'an open circuit does not call the upstream');
  failing = false;
  await new Promise((r) => setTimeout(r, 450));
  const probe = await post(gw.url, { model: 'm', messages: msg });
  t.is(probe.status, 200);
  t.is((await post(gw.url, { model: 'm', messages: msg })).status, 200, 'closed after a successful probe');
});

test('weighted split over 1,000 requests is within tolerance', async (t) => {
  const a = await startUpstream((_r, res) => replyJson(res, 200, completion('a')));
  const b = await startUpstream((_r, res) => replyJson(res, 200, completion('b')));
  const gw = await startGateway(
    baseConfig(`${provider('a', a, ['m'], 'weight = 3') + provider('b', b, ['m'], 'weight = 1')}[routing]\nstrategy = "weighted"\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await a.close();
    await b.close();
  });
  // each request a new conversation: the strategy picks for new conversations (affinity keeps a known one's member)
  const body = (i: number) => JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `hi ${i}` }] });
  for (let i = 0; i < 1000; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        fetch(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: body(i + j),
        }).then((r) => r.arrayBuffer()),
      ),
    );
  }
  const share = a.received.length / 1000;
  t.is(a.received.length + b.received.length, 1000);
  t.true(Math.abs(share - 0.75) < 0.03, `a got ${share}`);
});

test('least_busy sends a new request to the provider with fewer in flight', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const a = await startUpstream(async (_r, res) => {
    await gate;
    replyJson(res, 200, completion('a'));
  });
  const b = await startUpstream((_r, res) => replyJson(res, 200, completion('b')));
  const gw = await startGateway(baseConfig(`${provider('a', a, ['m']) + provider('b', b, ['m'])}[routing.models.m]\nstrategy = "least_busy"\n`));
  t.teardown(async () => {
    release();
    await gw.stop();
    await a.close();
    await b.close();
  });
  const first = post(gw.url, { model: 'm', messages: msg });
  // wait until one request is parked at a (or answered by b)
  for (let i = 0; i < 50 && a.received.length + b.received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const busy = a.received.length === 1;
  t.true(busy, 'the first request went to a (round-robin tie-break starts at a)');
  const others: string[] = [];
  // sequential: each sees a busy (1 in flight) and b idle
  for (let i = 0; i < 3; i++) others.push(((await (await post(gw.url, { model: 'm', messages: msg })).json()) as any).choices[0].message.content);
  t.deepEqual(others, ['b', 'b', 'b']);
  release();
  t.is((await first).status, 200);
});

test('a fallback answer is accounted under the model that answered', async (t) => {
  const down = await startUpstream((_r, res) => replyJson(res, 500, { error: { message: 'down' } }));
  const up = await startUpstream((r, res) => replyJson(res, 200, { ...completion('ok'), model: r.json.model }));
  const gw = await startGateway(
    baseConfig(`${provider('down', down, ['big'], 'max_retries = 0') + provider('up', up, ['small'])}[fallbacks]\nbig = ["small"]\n[extensions.usage]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await down.close();
    await up.close();
  });
  t.is((await post(gw.url, { model: 'big', messages: msg })).status, 200);
  const usage = (await (await fetch(`${gw.url}/v1/usage`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as any[];
  t.deepEqual(
    usage.map((u) => [u.key, u.model, u.prompt_tokens, u.completion_tokens]),
    [['default', 'small', 3, 1]],
  );
});

test('the circuit state shows in the admin provider listing', async (t) => {
  const up = await startUpstream((_r, res) => replyJson(res, 503, { error: { message: 'down' } }));
  const gw = await startGateway(baseConfig(`${provider('a', up, ['m'], 'max_retries = 0')}[routing]\nbreaker_failures = 2\nbreaker_cooldown_seconds = 60\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const circuit = async () =>
    ((await (await fetch(`${gw.url}/v1/admin/providers`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as any).data[0].circuit;
  t.is(await circuit(), 'closed');
  for (let i = 0; i < 2; i++) await post(gw.url, { model: 'm', messages: msg });
  t.is(await circuit(), 'open');
});

test('latency sends requests to the provider with the lower time to first byte once both are sampled', async (t) => {
  // 400 ms: a loaded 2-core machine (the whole suite at once) can stall one fast answer for 60 ms
  const slow = await startUpstream(async (_r, res) => {
    await new Promise((r) => setTimeout(r, 400));
    replyJson(res, 200, completion('slow'));
  });
  const fast = await startUpstream((_r, res) => replyJson(res, 200, completion('fast')));
  const gw = await startGateway(baseConfig(`${provider('slow', slow, ['m']) + provider('fast', fast, ['m'])}[routing]\nstrategy = "latency"\n`));
  t.teardown(async () => {
    await gw.stop();
    await slow.close();
    await fast.close();
  });
  // each request a new conversation (affinity would keep a known one on its member)
  for (let i = 0; i < 12; i++) t.is((await post(gw.url, { model: 'm', messages: [{ role: 'user', content: `hi ${i}` }] })).status, 200);
  // unsampled providers are tried first, then the lower EWMA wins every time
  t.is(slow.received.length, 1);
  t.is(fast.received.length, 11);
});
