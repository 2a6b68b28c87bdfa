import test from 'ava';
import { REDACT_PATHS } from '../../server/log.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { client, gatewayWith, HI, KEY, openaiUpstream, post } from '../helpers/ext-helpers.ts';

const lines = (logs: string[]) => logs.map((l) => JSON.parse(l));

test('logging: one line per completed request with its fields (stream included), one per error; no secrets, no content at info', async (t) => {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 9, completion_tokens: 4 }) });
  // the process logger stays at warn: the extension's level applies to its own lines
  const gw = await gatewayWith(t, up, '[extensions.logging]\nlevel = "info"\n');
  const c = client(gw);
  await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'secret-ish content' }] });
  const s = await c.chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true });
  for await (const _ of s) {
    /* drain */
  }
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI }, 'sk-wrong-key-000000000000')).status, 401); // before admission: not a request of the pipeline
  up.handle((_req, res) => {
    res.writeHead(500);
    res.end('{"error":{"message":"upstream down"}}');
  });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 502);

  const all = lines(gw.logs);
  const done = all.filter((l) => l.msg === 'request completed');
  t.is(done.length, 2);
  t.like(done[0], {
    route: 'chat',
    model: 'gpt-4o',
    provider: 'up',
    key_name: 'default',
    status: 200,
    prompt_tokens: 9,
    completion_tokens: 4,
    cache_hit: false,
    stream: false,
  });
  t.like(done[1], { stream: true, prompt_tokens: 9, completion_tokens: 4 });
  t.is(typeof done[0].req, 'string');
  t.true(done[0].latency_ms >= 0);
  const failed = all.filter((l) => l.msg === 'request failed');
  t.is(failed.length, 1);
  t.like(failed[0], { status: 502, key_name: 'default', model: 'gpt-4o', level: 50 });
  const text = gw.logs.join('\n');
  for (const secret of [KEY, ADMIN_TOKEN, 'sk-upstream-secret-value']) t.false(text.includes(secret));
  t.false(text.includes('secret-ish content'));
  // why these lines may skip pino's redaction: scalar fields only, none a path it censors
  const censored = new Set(REDACT_PATHS.filter((p) => /^\w+$/.test(p)));
  for (const line of [...done, ...failed])
    for (const [k, v] of Object.entries(line)) {
      t.false(censored.has(k), k);
      t.true(v === null || typeof v !== 'object', `${k} is a scalar`);
    }
});

test('logging: message content only at trace', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.logging]\nlevel = "trace"\n');
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'visible at trace' }] });
  const content = lines(gw.logs).find((l) => l.msg === 'request content');
  t.deepEqual(content?.request, { instructions: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'visible at trace' }] }] });
  t.regex(content?.response, /Hello! How can I assist you today\?/);
  t.false(gw.logs.join('\n').includes(KEY));
});

test('logging: level = "warn" keeps completed requests quiet but still logs failures', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, '[extensions.logging]\nlevel = "warn"\n[extensions.rate_limit]\nrequests_per_minute = 1\n');
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 429);
  const all = lines(gw.logs);
  t.is(all.filter((l) => l.msg === 'request completed').length, 0);
  t.like(
    all.find((l) => l.msg === 'request failed'),
    { status: 429, code: 'rate_limit_exceeded', level: 40 },
  );
});
