/**
 * The bill end to end: a request's cost is computed once by the core from its usage parts
 * at the price of the provider and model that served it, and every view agrees: the
 * answer's `x-gw-cost-usd`, the request log (`cost_usd` and its parts), `/v1/budget` and
 * `/metrics`. Bundled prices with no `[pricing]`; a provider's own price for the same model;
 * a model with no price (startup warning, cost null, the budget's refusal and the allow override).
 */
import test, { type ExecutionContext } from 'ava';
import { admin, ADMIN_TOKEN, KEY } from '../helpers/ext-helpers.ts';
import { baseConfig, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, type Handler, type MockUpstream } from '../helpers/upstream.ts';
import { bundledPrices } from '../../server/pricing/bundled.ts';
import type { PartRates } from '../../lib/pricing/price.ts';

const SONNET = 'claude-sonnet-4-6';

/** The bundled rates of a model in force today (the last dated entry), as plain numbers. */
function flatRates(kind: string, model: string): { input: number; output: number; cacheRead: number; cacheWrite: number } {
  const spec = bundledPrices().lookup(kind, model)!.spec;
  const r: PartRates = spec.changes?.at(-1)?.rates ?? spec.rates;
  const n = (v: unknown) => v as number;
  return { input: n(r.input), output: n(r.output), cacheRead: n(r.cacheRead ?? r.input), cacheWrite: n(r.cacheWrite ?? r.input) };
}

async function gateway(
  t: ExecutionContext,
  handler: Handler,
  providers: (origin: string) => string,
  extra = '',
): Promise<{ gw: TestGateway; up: MockUpstream }> {
  const up = await startUpstream(handler);
  const gw = await startGateway(baseConfig(`${providers(up.origin)}\n[extensions.request_log]\n${extra}`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { gw, up };
}

/** The request log once it holds `n` entries (it is written in batches). */
async function logged(gw: TestGateway, n: number): Promise<any[]> {
  for (let i = 0; i < 100; i++) {
    const rows = (await admin(gw, 'GET', '/v1/requests')).body as any[];
    if (rows.length >= n) return rows;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`fewer than ${n} requests logged`);
}

const round = (v: number) => Math.round(v * 1e9) / 1e9;

/** A recorded Messages answer (anthropic-text.json) with an agent's usage: a long cached prefix, a fresh cache write. */
function messagesAnswer(usage: Record<string, number>): string {
  const answer = fixtureJson('anthropic/vercel-ai/anthropic-text.json');
  return JSON.stringify({ ...answer, model: SONNET, usage: { ...answer.usage, ...usage } });
}

test('anthropic kind, bundled price, no [pricing]: x-gw-cost-usd, the request log and /metrics all charge the vendor formula', async (t) => {
  const usage = { input_tokens: 1000, cache_read_input_tokens: 9000, cache_creation_input_tokens: 2000, output_tokens: 100 };
  const { gw } = await gateway(
    t,
    (_req, res) => replyJson(res, 200, messagesAnswer(usage)),
    (o) => `[providers.anthropic]\napi_key = "sk-ant-upstream"\nbase_url = "${o}"\nmax_retries = 0\nmodels = ["${SONNET}"]\n`,
  );
  const r = flatRates('anthropic', SONNET);
  // by hand: 1,000 × $3 + 9,000 × $0.30 + 2,000 × $3.75 + 100 × $15 per million = $0.0147
  const expected = round((1000 * r.input + 9000 * r.cacheRead + 2000 * r.cacheWrite + 100 * r.output) / 1e6);
  t.is(expected, 0.0147);
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: SONNET, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  t.is(res.status, 200);
  t.is(res.headers.get('x-gw-cost-usd'), String(expected));
  const [entry] = await logged(gw, 1);
  t.is(entry.cost_usd, expected);
  t.deepEqual(entry.cost, {
    input: round((1000 * r.input) / 1e6),
    cached_input: round((9000 * r.cacheRead) / 1e6),
    cache_write: round((2000 * r.cacheWrite) / 1e6),
    output: round((100 * r.output) / 1e6),
    reasoning: 0,
  });
  const metrics = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  t.regex(metrics, new RegExp(`gw_cost_usd_total\\{key="default",model="${SONNET}"\\} 0\\.0147`));
  // which price applied, and from where (the admin model list, `gw models`, the console)
  const [listed] = (await admin(gw, 'GET', '/v1/admin/models')).body.data;
  t.like(listed.prices[0], {
    provider: 'anthropic',
    source: 'bundled',
    entry: `anthropic/${SONNET}`,
    input_per_mtok: r.input,
    output_per_mtok: r.output,
    cache_read_per_mtok: r.cacheRead,
    cache_write_per_mtok: r.cacheWrite,
  });
  t.regex(listed.prices[0].table, /^@pydantic\/genai-prices \d+\.\d+\.\d+/);
});

test('anthropic stream: the cost goes to the request log (no header: it leaves before the usage)', async (t) => {
  const sse = fixture('anthropic/vercel-ai/anthropic-text.sse')
    .replaceAll(
      '"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":0',
      '"input_tokens":500,"cache_creation_input_tokens":4000,"cache_read_input_tokens":60000',
    )
    .replaceAll('claude-sonnet-4-5-20250929', SONNET);
  t.true(sse.includes('"cache_read_input_tokens":60000'), 'the recorded stream carries the cache counts');
  const { gw } = await gateway(
    t,
    (_req, res) => replySse(res, sse),
    (o) => `[providers.anthropic]\napi_key = "sk-ant-upstream"\nbase_url = "${o}"\nmax_retries = 0\nmodels = ["${SONNET}"]\n`,
  );
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: SONNET, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  t.is(res.headers.get('x-gw-cost-usd'), null);
  await res.text();
  const [entry] = await logged(gw, 1);
  const r = flatRates('anthropic', SONNET);
  const output = entry.completion_tokens as number;
  t.is(entry.prompt_tokens, 64_500);
  t.is(entry.cost_usd, round((500 * r.input + 60_000 * r.cacheRead + 4000 * r.cacheWrite + output * r.output) / 1e6));
});

/** A chat answer (the spec example) reporting `cached` of `prompt` tokens cached. */
function chatAnswer(prompt: number, cached: number, completion: number): string {
  const chat = fixtureJson('openai/spec-examples/chat.default.response.json');
  return JSON.stringify({
    ...chat,
    model: 'gpt-4o',
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } },
  });
}

test('the same model at two providers: each request at the price of the provider that served it; the budget spends their sum', async (t) => {
  const { gw } = await gateway(
    t,
    (_req, res) => replyJson(res, 200, chatAnswer(10_000, 8000, 100)),
    (o) =>
      `[providers.oai]\nkind = "openai"\napi_key = "sk-a"\nbase_url = "${o}/v1"\nmax_retries = 0\nmodels = ["gpt-4o"]\n\n` +
      `[providers.az]\nkind = "openai"\napi_key = "sk-b"\nbase_url = "${o}/v1"\nmax_retries = 0\nmodels = ["gpt-4o"]\n` +
      `[providers.az.pricing."gpt-4o"]\ninput_per_mtok = 5\noutput_per_mtok = 20\ncache_read_per_mtok = 2.5\n`,
    '[extensions.budget]\ndefault_budget = 10\n',
  );
  const costs: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      // two conversations: prompt-cache affinity keeps one conversation on one provider
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: `Hi ${i}` }], max_tokens: 100 }),
    });
    t.is(res.status, 200);
    costs.push(res.headers.get('x-gw-cost-usd')!);
    await res.text();
  }
  const rows = await logged(gw, 2);
  const bundled = flatRates('openai', 'gpt-4o');
  const byProvider = Object.fromEntries(rows.map((e) => [e.provider, e.cost_usd]));
  // oai: the bundled gpt-4o price (2,000 × $2.50 + 8,000 × $1.25 + 100 × $10 = $0.016); az: its own (2,000 × $5 + 8,000 × $2.50 + 100 × $20 = $0.032)
  t.deepEqual(byProvider, {
    oai: round((2000 * bundled.input + 8000 * bundled.cacheRead + 100 * bundled.output) / 1e6),
    az: round((2000 * 5 + 8000 * 2.5 + 100 * 20) / 1e6),
  });
  t.deepEqual(costs.map(Number).sort(), [byProvider.oai, byProvider.az].sort());
  const b = (await admin(gw, 'GET', '/v1/budget')).body.find((x: any) => x.key === 'default');
  t.is(b.spent_usd, round(byProvider.oai + byProvider.az));
});

test('split pricing: a model priced at one provider only is charged at that price when the unpriced one serves it, the same in the header, the request log, the budget and the stream; startup names the pair', async (t) => {
  const { gw } = await gateway(
    t,
    (req, res) => {
      if (req.json?.stream) {
        const chunk = (o: object) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'house-model', ...o })}\n\n`;
        return replySse(
          res,
          chunk({ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] }) +
            chunk({ choices: [], usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 } }) +
            'data: [DONE]\n\n',
        );
      }
      replyJson(res, 200, chatAnswer(1000, 0, 100).replace('"gpt-4o"', '"house-model"'));
    },
    (o) =>
      `[providers.priced]\napi_key = "sk-a"\nbase_url = "${o}/v1"\nmax_retries = 0\nmodels = ["house-model"]\n` +
      `[providers.priced.pricing."house-model"]\ninput_per_mtok = 3\noutput_per_mtok = 15\n\n` +
      `[providers.plain]\napi_key = "sk-b"\nbase_url = "${o}/v1"\nmax_retries = 0\nmodels = ["house-model"]\n`,
    '[extensions.budget]\ndefault_budget = 10\n',
  );
  const warn = gw.logs.map((l) => JSON.parse(l)).find((l) => /no price for these \(provider, model\) pairs/.test(l.msg));
  t.deepEqual(warn?.pairs, [{ provider: 'plain', model: 'house-model' }]);
  t.deepEqual(warn?.models, []);
  const price = (1000 * 3 + 100 * 15) / 1e6;
  const headers: Array<string | null> = [];
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      // distinct conversations: round robin sends two to each provider
      body: JSON.stringify({ model: 'house-model', messages: [{ role: 'user', content: `Hi ${i}` }], max_tokens: 100 }),
    });
    t.is(res.status, 200);
    headers.push(res.headers.get('x-gw-cost-usd'));
    await res.text();
  }
  const stream = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'house-model', messages: [{ role: 'user', content: 'Hi 4' }], stream: true }),
  });
  await stream.text();
  const rows = await logged(gw, 5);
  t.deepEqual([...new Set(rows.map((e) => e.provider))].sort(), ['plain', 'priced']);
  t.deepEqual(headers, [String(price), String(price), String(price), String(price)]);
  t.deepEqual(
    rows.map((e) => e.cost_usd),
    [price, price, price, price, price],
  );
  const b = (await admin(gw, 'GET', '/v1/budget')).body.find((x: any) => x.key === 'default');
  t.like(b, { spent_usd: round(5 * price), reserved_usd: 0 });
});

const LOCAL = (o: string) => `[providers.local]\napi_key = "sk-local"\nbase_url = "${o}/v1"\nmax_retries = 0\nmodels = ["local-llm"]\n`;
const localAnswer: Handler = (_req, res) => replyJson(res, 200, chatAnswer(50, 0, 10).replace('"gpt-4o"', '"local-llm"'));

test('a model with no price anywhere: named at startup, cost null (never 0), no x-gw-cost-usd, refused by the budget', async (t) => {
  const { gw, up } = await gateway(t, localAnswer, LOCAL);
  const warn = gw.logs.map((l) => JSON.parse(l)).find((l) => /no price/.test(l.msg));
  t.deepEqual(warn?.models, ['local-llm']);
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'local-llm', messages: [{ role: 'user', content: 'Hi' }] }),
  });
  t.is(res.status, 200);
  t.is(res.headers.get('x-gw-cost-usd'), null);
  await res.text();
  const [entry] = await logged(gw, 1);
  t.is(entry.prompt_tokens, 50);
  t.is(entry.cost_usd, null);
  t.is(entry.cost, null);
  t.is(up.received.length, 1);
  t.deepEqual((await admin(gw, 'GET', '/v1/admin/models')).body.data[0].prices, [{ provider: 'local', source: null }]);
});

test('the budget refuses an unpriced model (403 model_not_priced) unless unpriced = "allow", which serves it at no cost', async (t) => {
  const refuse = await gateway(t, localAnswer, LOCAL, '[extensions.budget]\ndefault_budget = 1\n');
  const ask = (gw: TestGateway) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local-llm', messages: [{ role: 'user', content: 'Hi' }] }),
    });
  const r = await ask(refuse.gw);
  t.is(r.status, 403);
  const body = (await r.json()) as { error: { code: string; message: string } };
  t.is(body.error.code, 'model_not_priced');
  t.regex(body.error.message, /unpriced = "allow"/);
  t.is(refuse.up.received.length, 0);

  const allow = await gateway(t, localAnswer, LOCAL, '[extensions.budget]\ndefault_budget = 1\nunpriced = "allow"\n');
  const ok = await ask(allow.gw);
  t.is(ok.status, 200);
  await ok.text();
  const b = (await admin(allow.gw, 'GET', '/v1/budget')).body.find((x: any) => x.key === 'default');
  t.like(b, { spent_usd: 0, reserved_usd: 0 });
});

/**
 * An agent-shaped conversation (Claude Code's shape): every turn reads the prefix cached so
 * far and writes the new 2k tokens of it to the cache. Turn i (from 0): 40 uncached, 20k
 * written on the first turn, then 18k + 2k·(i-1) read and 2k written; 600 output.
 */
function agentTurn(i: number): Record<string, number> {
  return {
    input_tokens: 40,
    cache_read_input_tokens: i === 0 ? 0 : 18_000 + 2000 * (i - 1),
    cache_creation_input_tokens: i === 0 ? 20_000 : 2000,
    output_tokens: 600,
  };
}

for (const route of ['messages', 'chat'] as const) {
  test(`an agent's 10 turns through the anthropic kind (${route === 'messages' ? 'native' : 'translated from chat completions'}): the budget spends the sum of the turns' costs and admits every turn the money covers`, async (t) => {
    const r = flatRates('anthropic', SONNET);
    const costs = Array.from({ length: 10 }, (_, i) => {
      const u = agentTurn(i);
      return (
        (u.input_tokens! * r.input + u.cache_read_input_tokens! * r.cacheRead + u.cache_creation_input_tokens! * r.cacheWrite + u.output_tokens! * r.output) /
        1e6
      );
    });
    // enough for 7 turns and a bit: the 8th is admitted (spent < budget), the 9th is not;
    // at the old formula (every prompt token at the input price) the same money admitted 4
    const budget = round(costs.slice(0, 7).reduce((a, b) => a + b, 0) + 0.0001);
    let turn = 0;
    const { gw, up } = await gateway(
      t,
      (_req, res) => replyJson(res, 200, messagesAnswer(agentTurn(turn++))),
      (o) => `[providers.anthropic]\napi_key = "sk-ant-upstream"\nbase_url = "${o}"\nmax_retries = 0\nmodels = ["${SONNET}"]\n`,
      `[extensions.budget]\ndefault_budget = ${budget}\noutput_reserve_tokens = 1024\n`,
    );
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const messages = [{ role: 'user', content: `turn ${i}` }];
      const res =
        route === 'messages'
          ? await fetch(`${gw.url}/v1/messages`, {
              method: 'POST',
              headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
              body: JSON.stringify({ model: SONNET, max_tokens: 1024, messages }),
            })
          : await fetch(`${gw.url}/v1/chat/completions`, {
              method: 'POST',
              headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
              body: JSON.stringify({ model: SONNET, max_tokens: 1024, messages }),
            });
      statuses.push(res.status);
      await res.text();
    }
    t.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
    t.is(up.received.length, 8);
    const spent = (await admin(gw, 'GET', '/v1/budget')).body.find((x: any) => x.key === 'default').spent_usd;
    t.is(spent, round(costs.slice(0, 8).reduce((a, b) => a + b, 0)));
    const log = await logged(gw, 10);
    t.is(round(log.reduce((a, e) => a + (e.cost_usd ?? 0), 0)), spent, 'the request log sums to what the budget spent');
  });
}
