/**
 * The cost function (lib/pricing/cost.ts) at the bundled prices (server/pricing/bundled.ts):
 * for each vendor, usage as the common Usage carries it (cache reads and writes, reasoning
 * tokens, above a tier boundary) costs what the vendor's published formula says. Expected
 * figures are computed here from the price entries themselves (`vendorFormula`: each part
 * times its own rate, the rate of the tier the whole prompt reaches), one is worked by hand.
 */
import test from 'ava';
import type { Usage } from '../../lib/common/chat.ts';
import { costOf, maxCostOf } from '../../lib/pricing/cost.ts';
import { compilePrice, type PartRates, type PriceSpec, type Rate } from '../../lib/pricing/price.ts';
import { bundledPrices } from '../../server/pricing/bundled.ts';

const table = bundledPrices();
const NOW = Date.parse('2026-11-27T10:00:00Z');

function spec(kind: string, model: string): PriceSpec {
  const hit = table.lookup(kind, model);
  if (!hit) throw new Error(`no bundled price for ${kind}/${model}`);
  return hit.spec;
}

/** The rates in force at `at`: the last change whose date has come, else the first price. */
function ratesAt(s: PriceSpec, at: number): PartRates {
  let r = s.rates;
  for (const c of s.changes ?? []) if (at >= c.from) r = c.rates;
  return r;
}

/** A rate for a prompt of `prompt` tokens: the price of the last tier whose start it exceeds. */
function rateFor(r: Rate | undefined, prompt: number): number | undefined {
  if (r === undefined || typeof r === 'number') return r;
  let p = r.base;
  for (const t of r.tiers) if (prompt > t.start) p = t.price;
  return p;
}

interface Parts {
  uncached: number;
  cached?: number;
  write5m?: number;
  write1h?: number;
  output: number;
  reasoning?: number;
}

/** USD by the vendors' formula: every part at its own rate (missing cache rates are the input rate). */
function vendorFormula(s: PriceSpec, p: Parts, at = NOW, reasoningApart = false): number {
  const r = ratesAt(s, at);
  const prompt = p.uncached + (p.cached ?? 0) + (p.write5m ?? 0) + (p.write1h ?? 0);
  const input = rateFor(r.input, prompt)!;
  const output = rateFor(r.output, prompt)!;
  const cw = rateFor(r.cacheWrite, prompt) ?? input;
  const reasoning = reasoningApart ? rateFor(r.reasoning, prompt)! : output;
  return (
    (p.uncached * input +
      (p.cached ?? 0) * (rateFor(r.cacheRead, prompt) ?? input) +
      (p.write5m ?? 0) * cw +
      (p.write1h ?? 0) * (rateFor(r.cacheWrite1h, prompt) ?? cw) +
      (p.output - (p.reasoning ?? 0)) * output +
      (p.reasoning ?? 0) * reasoning) /
    1e6
  );
}

/** The common Usage of those parts (OpenAI semantics: prompt_tokens is all input, completion includes reasoning). */
function usageOf(p: Parts): Usage {
  const prompt = p.uncached + (p.cached ?? 0) + (p.write5m ?? 0) + (p.write1h ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: p.output,
    total_tokens: prompt + p.output,
    prompt_tokens_details: { cached_tokens: p.cached ?? 0, cache_write_tokens: (p.write5m ?? 0) + (p.write1h ?? 0), cache_write_1h_tokens: p.write1h ?? 0 },
    completion_tokens_details: { reasoning_tokens: p.reasoning ?? 0 },
  };
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;

test('anthropic claude-sonnet-4-6: the issue example, by hand: 1k uncached, 9k cache reads, 2k cache writes, 100 output = $0.0147', (t) => {
  // 1,000 × $3 + 9,000 × $0.30 + 2,000 × $3.75 + 100 × $15 per million
  // = 3,000 + 2,700 + 7,500 + 1,500 = 14,700 µ$ = $0.0147 (gw charged $0.0375 before: 12,100 × $3 + 100 × $15)
  const c = costOf(compilePrice(spec('anthropic', 'claude-sonnet-4-6')), usageOf({ uncached: 1000, cached: 9000, write5m: 2000, output: 100 }), NOW);
  t.true(close(c.total, 0.0147), String(c.total));
  t.true(close(c.input, 0.003) && close(c.cached_input, 0.0027) && close(c.cache_write, 0.0075) && close(c.output, 0.0015));
  t.is(c.reasoning, 0);
});

test('anthropic: 1-hour cache writes at their own rate (2x input), 5-minute ones at 1.25x; thinking tokens are output', (t) => {
  const s = spec('anthropic', 'claude-sonnet-4-6');
  const parts = { uncached: 500, cached: 40_000, write5m: 3000, write1h: 1000, output: 2000, reasoning: 1500 };
  const c = costOf(compilePrice(s), usageOf(parts), NOW);
  t.true(close(c.total, vendorFormula(s, parts)), `${c.total} vs ${vendorFormula(s, parts)}`);
  t.true(close(c.cache_write, (3000 * 3.75 + 1000 * 6) / 1e6));
});

test('anthropic claude-sonnet-4-5 above 200k prompt tokens: every token at the long-context rate, cache parts too', (t) => {
  const s = spec('anthropic', 'claude-sonnet-4-5-20250929');
  const parts = { uncached: 10_000, cached: 190_000, write5m: 5000, output: 1000 };
  const c = costOf(compilePrice(s), usageOf(parts), NOW);
  t.true(close(c.total, vendorFormula(s, parts)));
  // 10k × $6 + 190k × $0.60 + 5k × $7.50 + 1k × $22.50
  t.true(close(c.total, (10_000 * 6 + 190_000 * 0.6 + 5000 * 7.5 + 1000 * 22.5) / 1e6));
  // exactly at the boundary the base rates apply: a tier starts above its start
  const at = costOf(compilePrice(s), usageOf({ uncached: 200_000, output: 0 }), NOW);
  t.true(close(at.total, (200_000 * 3) / 1e6));
});

test('anthropic claude-sonnet-4-6: a dated price change applies from its start_date (long-context tier before, flat after)', (t) => {
  const s = spec('anthropic', 'claude-sonnet-4-6');
  t.truthy(s.changes?.length, 'the dataset dates this model');
  const parts = { uncached: 250_000, output: 1000 };
  const before = Date.parse('2026-01-15T00:00:00Z');
  const p = compilePrice(s);
  t.true(close(costOf(p, usageOf(parts), before).total, vendorFormula(s, parts, before)));
  t.true(close(costOf(p, usageOf(parts), NOW).total, vendorFormula(s, parts, NOW)));
  t.true(costOf(p, usageOf(parts), before).total > costOf(p, usageOf(parts), NOW).total);
});

test('openai gpt-4o: 8k of 10k prompt tokens cached at half price (the issue example: $0.016, not $0.026)', (t) => {
  const s = spec('openai', 'gpt-4o-2024-08-06');
  const parts = { uncached: 2000, cached: 8000, output: 100 };
  const c = costOf(compilePrice(s), usageOf(parts), NOW);
  t.true(close(c.total, vendorFormula(s, parts)));
  // 2,000 × $2.50 + 8,000 × $1.25 + 100 × $10 = 16,000 µ$ (before: 10,000 × $2.50 + 100 × $10 = 26,000 µ$)
  t.true(close(c.total, 0.016));
});

test('openai gpt-5: reasoning tokens are part of completion_tokens, billed once at the output rate', (t) => {
  const s = spec('openai', 'gpt-5');
  const parts = { uncached: 3000, cached: 7000, output: 5000, reasoning: 4000 };
  const c = costOf(compilePrice(s), usageOf(parts), NOW);
  t.true(close(c.total, vendorFormula(s, parts)));
  t.is(c.reasoning, 0, 'no reasoning rate of its own: reasoning is output');
  t.true(close(c.output, (5000 * 10) / 1e6));
});

test('azure: gpt-4o is priced as OpenAI prices it (the dataset falls back from azure to openai)', (t) => {
  t.is(table.lookup('azure', 'gpt-4o')?.entry, 'openai/gpt-4o');
  t.deepEqual(spec('azure', 'gpt-4o'), spec('openai', 'gpt-4o'));
});

test('gemini gemini-2.5-pro: cached content and thinking, below and above the 200k tier', (t) => {
  const s = spec('gemini', 'gemini-2.5-pro');
  for (const parts of [
    { uncached: 20_000, cached: 80_000, output: 3000, reasoning: 2500 },
    { uncached: 60_000, cached: 180_000, output: 3000, reasoning: 2500 },
  ]) {
    const c = costOf(compilePrice(s), usageOf(parts), NOW);
    t.true(close(c.total, vendorFormula(s, parts)), JSON.stringify(parts));
  }
  const above = costOf(compilePrice(s), usageOf({ uncached: 60_000, cached: 180_000, output: 1000 }), NOW);
  t.true(close(above.total, (60_000 * 2.5 + 180_000 * 0.25 + 1000 * 15) / 1e6));
});

test('zhipu glm-4.7 and glm-5: cached tokens at the cache rate', (t) => {
  for (const model of ['glm-4.7', 'GLM-5']) {
    const s = spec('zhipu', model);
    const parts = { uncached: 4000, cached: 12_000, output: 800 };
    t.true(close(costOf(compilePrice(s), usageOf(parts), NOW).total, vendorFormula(s, parts)), model);
  }
});

test('dashscope (gw supplement): qwen3-coder-plus input-length tiers; qwen-plus thinking tokens at their own rate', (t) => {
  const coder = spec('dashscope', 'qwen3-coder-plus');
  for (const parts of [
    { uncached: 3000, cached: 20_000, output: 900 },
    { uncached: 8000, cached: 40_000, write5m: 2000, output: 900 },
    { uncached: 8000, cached: 260_000, output: 900 },
  ]) {
    const c = costOf(compilePrice(coder), usageOf(parts), NOW);
    t.true(close(c.total, vendorFormula(coder, parts)), JSON.stringify(parts));
  }
  // 50k prompt (32k-128k band): 8k × $1.80 + 40k × $0.36 + 2k × $2.25 + 900 × $9
  t.true(
    close(
      costOf(compilePrice(coder), usageOf({ uncached: 8000, cached: 40_000, write5m: 2000, output: 900 }), NOW).total,
      (8000 * 1.8 + 40_000 * 0.36 + 2000 * 2.25 + 900 * 9) / 1e6,
    ),
  );
  const plus = spec('dashscope', 'qwen-plus');
  const parts = { uncached: 1000, output: 3000, reasoning: 2000 };
  const c = costOf(compilePrice(plus), usageOf(parts), NOW);
  t.true(close(c.total, vendorFormula(plus, parts, NOW, true)));
  t.true(close(c.reasoning, (2000 * 4) / 1e6) && close(c.output, (1000 * 1.2) / 1e6));
});

test('dated ids find their family; other kinds, custom kinds and unknown models find nothing', (t) => {
  t.is(table.lookup('anthropic', 'claude-sonnet-4-5-20250929')?.entry, 'anthropic/claude-sonnet-4-5');
  t.is(table.lookup('openai', 'gpt-4o-2024-08-06')?.entry, 'openai/gpt-4o');
  t.is(table.lookup('dashscope', 'qwen3-coder-plus-2025-09-23')?.entry, 'dashscope/qwen3-coder-plus');
  t.is(table.lookup('dashscope', 'qwen-plus-latest')?.entry, 'dashscope/qwen-plus');
  t.is(table.lookup('dashscope', 'qwen-plus-character'), undefined, 'another model, not a snapshot');
  t.is(table.lookup('together', 'gpt-4o'), undefined, 'a self-defined kind has no bundled price');
  t.is(table.lookup('openai', 'no-such-model'), undefined);
  t.is(table.lookup('dashscope', 'constructor'), undefined);
  t.regex(table.name, /^@pydantic\/genai-prices \d+\.\d+\.\d+ \+ gw dashscope \d{4}-\d{2}-\d{2}$/);
});

test('missing parts read as 0, a part larger than its whole is capped, an empty usage costs 0', (t) => {
  const p = compilePrice({ rates: { input: 2, output: 8, cacheRead: 0.5 } });
  t.is(costOf(p, { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 }, NOW).total, (1000 * 2 + 100 * 8) / 1e6);
  const capped = costOf(p, { prompt_tokens: 1000, completion_tokens: 0, total_tokens: 1000, prompt_tokens_details: { cached_tokens: 5000 } }, NOW);
  t.is(capped.total, (1000 * 0.5) / 1e6);
  t.is(capped.input, 0);
  t.is(costOf(p, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, prompt_tokens_details: null }, NOW).total, 0);
});

test('missing cache rates fall back: reads and writes at the input rate, 1-hour writes at the write rate, reasoning at output', (t) => {
  const p = compilePrice({ rates: { input: 2, output: 8, cacheWrite: 2.5 } });
  const c = costOf(p, usageOf({ uncached: 100, cached: 1000, write5m: 200, write1h: 300, output: 50, reasoning: 20 }), NOW);
  t.is(c.cached_input, (1000 * 2) / 1e6);
  t.is(c.cache_write, (500 * 2.5) / 1e6);
  t.is(c.output, (50 * 8) / 1e6);
});

test('the reservation bound: prompt at the dearest input-side rate of its tier, output at the dearer of output and reasoning', (t) => {
  const p = compilePrice(spec('anthropic', 'claude-sonnet-4-5'));
  t.true(close(maxCostOf(p, 10_000, 1000, NOW), (10_000 * 6 + 1000 * 15) / 1e6), '1-hour cache writes (2x) bound a prompt below the tier');
  t.true(close(maxCostOf(p, 300_000, 1000, NOW), (300_000 * 12 + 1000 * 22.5) / 1e6));
  // never below what any mix of parts costs
  const u = usageOf({ uncached: 2000, write5m: 3000, write1h: 5000, output: 1000 });
  t.true(costOf(p, u, NOW).total <= maxCostOf(p, 10_000, 1000, NOW));
  const q = compilePrice({ rates: { input: 1, output: 2, reasoning: 5 } });
  t.is(maxCostOf(q, 1000, 1000, NOW), (1000 * 1 + 1000 * 5) / 1e6);
});

test('compilePrice refuses negative rates and bad tier starts', (t) => {
  t.throws(() => compilePrice({ rates: { input: -1, output: 1 } }), { instanceOf: RangeError });
  t.throws(() => compilePrice({ rates: { input: 1, output: { base: 1, tiers: [{ start: 1.5, price: 2 }] } } }), { instanceOf: RangeError });
  t.throws(() => compilePrice({ rates: { input: 1, output: Number.NaN } }), { instanceOf: RangeError });
});

test('the mock kind is free in the bundled table: the example config has no unpriced model', (t) => {
  const hit = table.lookup('mock', 'mock-1');
  t.is(hit?.entry, 'mock (free)');
  t.deepEqual(hit?.spec.rates, { input: 0, output: 0 });
  t.is(table.lookup('openai', 'mock-1'), undefined);
});
