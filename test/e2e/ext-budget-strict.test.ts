/**
 * `[extensions.budget] strict = true` (issue 23 item 11): a request is refused (429
 * `budget_exceeded`) when its own reservation does not fit in what is left, not only once
 * spent + other holds reach the budget, so one request can no longer take a small budget
 * far past its end (an 8 MB prompt took $0.01 to $8). Exact under concurrency, on LevelDB
 * and on Redis shared by two instances. The default (not strict) still admits such a
 * request and overshoots, as the contract allows.
 */
import test, { type ExecutionContext } from 'ava';
import { usd } from '../../plugins/extensions/budget/spend.ts';
import { estimatePromptTokens } from '../../plugins/extensions/budget/estimate.ts';
import { baseConfig, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { redisFor } from '../helpers/redis.ts';
import { admin, gatewaysOf, json, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';
import type { MockUpstream } from '../helpers/upstream.ts';

/** $0.01 per output token, input $10 per million: max_tokens 100 costs ~$1. */
const PRICING = '[pricing."gpt-4o"]\ninput_per_mtok = 10\noutput_per_mtok = 10000\n';
/** The upstream charges what was asked: 10 prompt tokens, max_tokens completion tokens. */
const upstreamUsage = (req: any) => ({ prompt_tokens: 10, completion_tokens: req?.max_tokens ?? 50 });
const cost = (completion: number) => (10 * 10 + completion * 10_000) / 1e6;
/** What gw reserves for a chat body: prompt estimate (bytes / 3) at the input price + max_tokens at the output price. */
const reservation = (body: Record<string, unknown>) => (estimatePromptTokens(JSON.stringify(body)) * 10 + (body.max_tokens as number) * 10_000) / 1e6;

/** gw instances on `up` with a budget of `budget` USD (strict or not); `store` is a `[store]` section or ''. */
function gateways(t: ExecutionContext, up: MockUpstream, budget: number, strict: boolean, store = '', n = 1): Promise<TestGateway[]> {
  return gatewaysOf(
    t,
    up,
    baseConfig(`${providerSection(up)}\n${store}\n${PRICING}\n[extensions.budget]\ndefault_budget = ${budget}\nstrict = ${strict}\n`),
    n,
  );
}

const chat = (maxTokens: number, content = 'hi') => ({ model: 'gpt-4o', messages: [{ role: 'user', content }], max_tokens: maxTokens });

async function spent(gw: TestGateway): Promise<{ spent_usd: number; reserved_usd: number; remaining_usd: number }> {
  return (await admin(gw, 'GET', '/v1/budget')).body.find((b: any) => b.key === 'default');
}

test('strict: a request whose reservation does not fit in what is left is refused before the upstream; the default lets it overshoot', async (t) => {
  // a 300 kB prompt reserves ~$1 of input against a $0.02 budget (the 8 MB prompt, smaller)
  const big = chat(1, 'x'.repeat(300_000));
  // the upstream counts ~4 bytes a token
  const usageOf = (req: any) => ({ prompt_tokens: Math.ceil(JSON.stringify(req.messages).length / 4), completion_tokens: req.max_tokens });
  for (const strict of [true, false]) {
    const up = await openaiUpstream({ usageOf });
    const [gw] = (await gateways(t, up, 0.02, strict)) as [TestGateway];
    const r = await post(gw, '/v1/chat/completions', big);
    if (!strict) {
      t.is(r.status, 200, 'not strict: admitted, nothing was spent yet');
      await r.arrayBuffer();
      const b = await spent(gw);
      t.true(b.spent_usd > 0.75, `and the budget is overshot ~38x ($${b.spent_usd} of $0.02)`);
      continue;
    }
    t.is(r.status, 429);
    const err = (await json(r)).error;
    t.is(err.code, 'budget_exceeded');
    t.is(err.message, `budget too small for this request (it reserves $${usd(reservation(big))}, $0.02 is left) for key 'default': spent $0 of $0.02`);
    t.is(up.received.length, 0, 'refused before any upstream call');
    // a request that fits is served and charged its usage
    const small = await post(gw, '/v1/chat/completions', chat(1));
    t.is(small.status, 200);
    await small.arrayBuffer();
    t.like(await spent(gw), { spent_usd: usd((usageOf(chat(1)).prompt_tokens * 10 + 10_000) / 1e6), reserved_usd: 0 });
  }
});

test('strict: sequential requests use the budget to its end and never past it; the refusal says what is left', async (t) => {
  const up = await openaiUpstream({ usageOf: upstreamUsage });
  const [gw] = (await gateways(t, up, 5, true)) as [TestGateway];
  const send = async (maxTokens: number) => {
    const r = await post(gw, '/v1/chat/completions', chat(maxTokens));
    return { status: r.status, body: await json(r) };
  };
  t.is((await send(300)).status, 200); // $3.0001
  const over = await send(200); // reserves ~$2.0003 > $1.9999 left
  t.is(over.status, 429);
  t.regex(
    over.body.error.message,
    /^budget too small for this request \(it reserves \$2\.000\d+, \$1\.9999 is left\) for key 'default': spent \$3\.0001 of \$5$/,
  );
  t.is((await send(199)).status, 200); // fits: ~$1.9903 of $1.9999
  t.like(await spent(gw), { spent_usd: usd(cost(300) + cost(199)), reserved_usd: 0 });
  t.true((await spent(gw)).spent_usd <= 5);
  t.is((await send(1)).status, 429, 'what is left is smaller than any reservation with a prompt');
  t.is(up.received.length, 2);
});

/**
 * 40 requests at once, each reserving ~$1.0002 against $5: exactly 4 fit while they are in
 * flight (the upstream answers after 300 ms), and the spend stays under the budget. The
 * default admits a 5th on the same race (existing test in ext-budget.test.ts).
 */
async function concurrent(t: ExecutionContext, store: string, instances: number): Promise<void> {
  const up = await openaiUpstream({ usageOf: upstreamUsage, delayMs: 300 });
  const gws = await gateways(t, up, 5, true, store, instances);
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      post(gws[i % gws.length]!, '/v1/chat/completions', chat(100)).then(async (r) => ({ status: r.status, body: await json(r) })),
    ),
  );
  const ok = results.filter((r) => r.status === 200).length;
  const refused = results.filter((r) => r.status === 429);
  t.is(ok, 4, `4 reservations of ~$1.0002 fit in $5 (got ${ok})`);
  t.is(refused.length, 36);
  t.true(refused.every((r) => r.body.error.code === 'budget_exceeded'));
  t.is(up.received.length, 4);
  const b = await spent(gws[0]!);
  t.like(b, { spent_usd: usd(4 * cost(100)), reserved_usd: 0 });
  // the rest of the budget is still usable, to the end and not past it
  t.is((await post(gws[gws.length - 1]!, '/v1/chat/completions', chat(99))).status, 200);
  t.is((await post(gws[0]!, '/v1/chat/completions', chat(1))).status, 429);
  t.true((await spent(gws[0]!)).spent_usd <= 5);
}

test('strict, LevelDB: 40 parallel requests against room for 4 — exactly 4 admitted, never overspent', async (t) => {
  await concurrent(t, '', 1);
});

test('strict, Redis shared by two instances: 40 parallel requests spread over both — exactly 4 admitted, never overspent', async (t) => {
  const redis = await redisFor(t);
  if (!redis) return;
  await concurrent(t, `[store]\nurl = "${redis.url}"\n`, 2);
});

test('strict is a boolean: anything else is a config error naming extensions.budget.strict', async (t) => {
  const up = await openaiUpstream();
  t.teardown(() => up.close());
  const err = await t.throwsAsync(startGateway(baseConfig(`${providerSection(up)}\n${PRICING}\n[extensions.budget]\ndefault_budget = 1\nstrict = "yes"\n`)));
  t.regex(err!.message, /extensions\.budget\.strict: .*expected boolean/);
});
