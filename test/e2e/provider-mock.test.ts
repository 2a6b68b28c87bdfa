/**
 * The `mock` kind honours the request's output cap (issue 38 item 7, defect #9: it ignored
 * `max_tokens`, so a strict budget of $3 overshot to $8 on it): its completion tokens never
 * exceed `max_tokens` / `max_completion_tokens` (chat, streamed or not, and /v1/messages),
 * a cut answer ends with `finish_reason: "length"`, and a strict budget holds on it.
 */
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { admin, json, post } from '../helpers/ext-helpers.ts';

/** Eight words: eight tokens to the mock. */
const PROMPT = 'one two three four five six seven eight';
const MOCK = '[providers.mock]\ndelay_ms = 0\n';
/** $1 per output token, input free: a request's cost is its completion tokens; a strict budget of $3. */
const BUDGET = '[pricing."mock-1"]\ninput_per_mtok = 0\noutput_per_mtok = 1000000\n\n[extensions.budget]\ndefault_budget = 3\nstrict = true\n';

async function gateway(t: ExecutionContext, extra = ''): Promise<TestGateway> {
  const gw = await startGateway(baseConfig(`${MOCK}\n${extra}`));
  t.teardown(() => gw.stop());
  return gw;
}

test('chat: the answer is cut to max_tokens / max_completion_tokens words, finish_reason length, usage within the cap; streamed too', async (t) => {
  const gw = await gateway(t);
  const c = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 });
  const cut = await c.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: PROMPT }], max_tokens: 2 });
  t.is(cut.choices[0]!.message.content, 'one two');
  t.is(cut.choices[0]!.finish_reason, 'length');
  t.is(cut.usage!.completion_tokens, 2);
  const whole = await c.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'just this' }], max_completion_tokens: 2 });
  t.is(whole.choices[0]!.message.content, 'just this');
  t.is(whole.choices[0]!.finish_reason, 'stop');
  t.is(whole.usage!.completion_tokens, 2);
  const stream = await c.chat.completions.create({
    model: 'mock-1',
    messages: [{ role: 'user', content: PROMPT }],
    max_completion_tokens: 1,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let finish: string | null = null;
  let completion = -1;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
    if (chunk.usage) completion = chunk.usage.completion_tokens;
  }
  t.is(text.trim(), 'one');
  t.is(finish, 'length');
  t.is(completion, 1);
});

test('/v1/messages (translated): output_tokens within max_tokens, stop_reason max_tokens', async (t) => {
  const gw = await gateway(t);
  const r = await post(gw, '/v1/messages', { model: 'mock-1', max_tokens: 3, messages: [{ role: 'user', content: PROMPT }] });
  t.is(r.status, 200);
  const body = await json(r);
  t.is(body.content[0].text, 'one two three');
  t.is(body.usage.output_tokens, 3);
  t.is(body.stop_reason, 'max_tokens');
});

test('a strict budget of $3 holds on the mock: the first request costs its max_tokens, the next one no longer fits', async (t) => {
  const gw = await gateway(t, BUDGET);
  const ask = () => post(gw, '/v1/chat/completions', { model: 'mock-1', messages: [{ role: 'user', content: PROMPT }], max_tokens: 2 });
  const first = await ask();
  t.is(first.status, 200);
  t.is(first.headers.get('x-gw-cost-usd'), '2');
  await first.text();
  const second = await ask();
  t.is(second.status, 429);
  t.is((await json(second)).error.code, 'budget_exceeded');
  const b = (await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'default');
  t.like(b, { spent_usd: 2, budget_usd: 3, reserved_usd: 0 });
});
