import test from 'ava';
import OpenAI from 'openai';
import { estimateTokens } from '../../lib/common/estimate.ts';
import { usd } from '../../plugins/extensions/budget/spend.ts';
import { admin, client, gatewayWith, HI, KEY, KEY2, openaiUpstream, post, json } from '../helpers/ext-helpers.ts';

/** $0.01 per output token, input nearly free: a request with max_tokens 100 costs ~$1. */
const PRICING =
  '[pricing."gpt-4o"]\ninput_per_mtok = 10\noutput_per_mtok = 10000\n\n[pricing."text-embedding-3-small"]\ninput_per_mtok = 20\noutput_per_mtok = 0\n';
const upstreamUsage = (req: any) => ({ prompt_tokens: 10, completion_tokens: req?.max_tokens ?? 50 });

test('budget: 50 parallel requests against a budget of ~5 requests — overspend bounded by what was in flight', async (t) => {
  const up = await openaiUpstream({ usageOf: upstreamUsage, delayMs: 150 });
  const gw = await gatewayWith(t, up, `${PRICING}\n[extensions.budget]\ndefault_budget = 5.0\n`);
  const results = await Promise.all(
    Array.from({ length: 50 }, () =>
      post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 100 }).then(async (r) => ({ status: r.status, body: await json(r) })),
    ),
  );
  const ok = results.filter((r) => r.status === 200).length;
  const refused = results.filter((r) => r.status === 429);
  t.is(ok + refused.length, 50);
  t.is(refused[0]!.body.error.code, 'budget_exceeded');
  t.is(up.received.length, ok);
  const b = (await admin(gw, 'GET', '/v1/budget')).body.find((x: any) => x.key === 'default');
  const perRequest = (10 * 10 + 100 * 10_000) / 1e6; // $1.0001
  t.is(b.spent_usd, Math.round(ok * perRequest * 1e9) / 1e9);
  const overspend = b.spent_usd - 5;
  t.log(`admitted ${ok} of 50, spent $${b.spent_usd} of $5, overspend $${overspend.toFixed(6)} (one request costs $${perRequest})`);
  t.true(overspend < perRequest, `overspend ${overspend} must stay below one in-flight request`);
  t.is(ok, 5);
  t.is(b.reserved_usd, 0);
  // spent >= budget: every later request is refused before the upstream, and told not to retry
  // (a 429 the SDKs would otherwise retry, Claude Code for minutes)
  const later = await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 1 });
  t.is(later.status, 429);
  t.is(later.headers.get('x-should-retry'), 'false');
  t.is(up.received.length, ok);
});

test('budget: GET /v1/budget per key with overrides; spend from actual usage, not the reservation; refused once spent >= budget; other key unaffected', async (t) => {
  const up = await openaiUpstream({ usageOf: upstreamUsage });
  const gw = await gatewayWith(t, up, `${PRICING}\n[extensions.budget]\ndefault_budget = 2.0\n[extensions.budget.keys.second]\nbudget = 0.5\n`);
  const c = client(gw);
  // no max_tokens: the reservation uses output_reserve_tokens (4096 x $0.01 = $40.96 > budget) but admission only looks at others' holds
  await c.chat.completions.create({ model: 'gpt-4o', messages: HI, max_tokens: 120 }); // $1.2001
  await c.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' }); // 10 x $20/M
  let r = await admin(gw, 'GET', '/v1/budget');
  t.is(r.status, 200);
  t.deepEqual(r.body, [
    { key: 'default', spent_usd: 1.2003, budget_usd: 2, remaining_usd: 0.7997, reserved_usd: 0, period: 'lifetime' },
    { key: 'second', spent_usd: 0, budget_usd: 0.5, remaining_usd: 0.5, reserved_usd: 0, period: 'lifetime' },
  ]);
  await c.chat.completions.create({ model: 'gpt-4o', messages: HI, max_tokens: 80 }); // still under: admitted, ends at $2.0004
  const err = await t.throwsAsync(c.chat.completions.create({ model: 'gpt-4o', messages: HI, max_tokens: 1 }), { instanceOf: OpenAI.RateLimitError });
  t.regex(err!.message, /budget/);
  const c2 = client(gw, KEY2);
  await c2.chat.completions.create({ model: 'gpt-4o', messages: HI, max_tokens: 60 }); // $0.6001 >= 0.5 afterwards
  await t.throwsAsync(c2.chat.completions.create({ model: 'gpt-4o', messages: HI, max_tokens: 1 }), { instanceOf: OpenAI.RateLimitError });
  r = await admin(gw, 'GET', '/v1/budget');
  t.like(r.body[0], { key: 'default', spent_usd: 2.0004, remaining_usd: -0.0004 });
  t.like(r.body[1], { key: 'second', spent_usd: 0.6001 });
  t.is(up.received.length, 4);
  t.is((await admin(gw, 'GET', '/v1/budget', KEY)).status, 403);
});

test('budget: streamed requests are charged from stream usage the client never asked for', async (t) => {
  const up = await openaiUpstream({ usageOf: upstreamUsage });
  const gw = await gatewayWith(t, up, `${PRICING}\n[extensions.budget]\ndefault_budget = 10\n`);
  const s = await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI, max_tokens: 30, stream: true });
  for await (const ch of s) t.falsy(ch.usage);
  const b = (await admin(gw, 'GET', '/v1/budget')).body[0];
  t.is(b.spent_usd, 0.3001);
});

test('budget: a model without pricing is refused with 403 model_not_priced before any upstream call; startup warns', async (t) => {
  const up = await openaiUpstream();
  const gw = await gatewayWith(t, up, `[pricing."gpt-4o"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n\n[extensions.budget]\ndefault_budget = 10\n`);
  const r = await post(gw, '/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' });
  t.is(r.status, 403);
  const body = await json(r);
  t.is(body.error.code, 'model_not_priced');
  t.regex(body.error.message, /text-embedding-3-small/);
  t.is(up.received.length, 0);
  const warn = gw.logs.map((l) => JSON.parse(l)).find((l) => /pricing/.test(l.msg));
  t.deepEqual(warn?.models, ['text-embedding-3-small']);
});

test('budget: failed calls and cache hits cost nothing and leave no reservation behind; a client that walks away mid-stream pays what it streamed', async (t) => {
  const up = await openaiUpstream({ usageOf: upstreamUsage });
  const gw = await gatewayWith(t, up, `${PRICING}\n[extensions.cache]\n[extensions.budget]\ndefault_budget = 10\n`);
  const body = { model: 'gpt-4o', messages: HI, max_tokens: 10 };
  t.is((await post(gw, '/v1/chat/completions', body)).status, 200);
  const hit = await post(gw, '/v1/chat/completions', body);
  t.is(hit.headers.get('x-gw-cache'), 'hit');
  up.handle((_req, res) => {
    res.writeHead(503);
    res.end('{"error":{"message":"down"}}');
  });
  t.is((await post(gw, '/v1/chat/completions', { ...body, max_tokens: 11 })).status, 502);
  // client walks away mid-stream
  up.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}\n\n',
    );
  });
  const ac = new AbortController();
  const s = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    signal: ac.signal,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const reader = s.body!.getReader();
  await reader.read();
  ac.abort();
  let b: any;
  for (let i = 0; i < 50; i++) {
    b = (await admin(gw, 'GET', '/v1/budget')).body[0];
    if (b.reserved_usd === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  t.is(b.reserved_usd, 0);
  // the stream: no usage reported yet, so the prompt estimate and "x" (1 token) at $0.01 per output token
  t.is(b.spent_usd, usd(0.1001 + (estimateTokens({ ...body, stream: true }) * 10 + 1 * 10000) / 1e6));
});
