/**
 * `[pricing."<model>"]` and `[providers.<name>.pricing."<model>"]` (lib/pricing/schema.ts):
 * the TOML shape with tiers and dated changes, errors naming the key path; and the lookup
 * order (lib/pricing/book.ts): provider price > [pricing] > bundled table, then the
 * requested model's and the client's name's [pricing].
 */
import test from 'ava';
import { parse } from 'smol-toml';
import { compileConfigured, PriceBook, type PriceTable } from '../../lib/pricing/book.ts';
import { costOf } from '../../lib/pricing/cost.ts';
import { compilePrice } from '../../lib/pricing/price.ts';
import { priceConfigSchema, specOf } from '../../lib/pricing/schema.ts';
import { pricingSchema } from '../../lib/config/schema.ts';

const NOW = Date.parse('2026-11-27T10:00:00Z');

function priced(toml: string) {
  const r = pricingSchema.safeParse((parse(toml) as { pricing: unknown }).pricing);
  if (!r.success) throw new Error(JSON.stringify(r.error.issues));
  return r.data;
}

test('a full entry: cache, 1-hour writes, reasoning, tiers (a rate a tier omits stays the one below) and dated changes', (t) => {
  const p = priced(`
[pricing."m"]
input_per_mtok = 3
output_per_mtok = 15
cache_read_per_mtok = 0.3
cache_write_per_mtok = 3.75
cache_write_1h_per_mtok = 6
reasoning_per_mtok = 20
tiers = [{ above_tokens = 200000, input_per_mtok = 6, output_per_mtok = 22.5, cache_read_per_mtok = 0.6 }]
changes = [{ start_date = 2026-03-13, input_per_mtok = 2, output_per_mtok = 10 }]
`);
  const price = compilePrice(specOf(p.m!));
  const u = {
    prompt_tokens: 250_000,
    completion_tokens: 1000,
    total_tokens: 251_000,
    prompt_tokens_details: { cached_tokens: 200_000, cache_write_tokens: 10_000, cache_write_1h_tokens: 4000 },
    completion_tokens_details: { reasoning_tokens: 400 },
  };
  const before = costOf(price, u, Date.parse('2026-01-01T00:00:00Z'));
  // above 200k: input 6, cache read 0.6, writes keep 3.75 and 6 (the tier names none), output 22.5, reasoning keeps 20
  const expected = (40_000 * 6 + 200_000 * 0.6 + 6000 * 3.75 + 4000 * 6 + 600 * 22.5 + 400 * 20) / 1e6;
  t.true(Math.abs(before.total - expected) < 1e-12, `${before.total} vs ${expected}`);
  // from 2026-03-13 (UTC midnight): the change, a whole price of its own (no cache rates: input rate)
  const after = costOf(price, u, Date.parse('2026-03-13T00:00:00Z'));
  t.true(Math.abs(after.total - (250_000 * 2 + 1000 * 10) / 1e6) < 1e-12);
  t.true(Math.abs(costOf(price, u, Date.parse('2026-03-12T23:59:59Z')).total - expected) < 1e-12);
});

test('the old two-field entry keeps its meaning', (t) => {
  const p = priced(`[pricing."gpt-x"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10\n`);
  t.is(costOf(compilePrice(specOf(p['gpt-x']!)), { prompt_tokens: 1e6, completion_tokens: 1e6, total_tokens: 2e6 }, NOW).total, 12.5);
});

test('bad entries are refused, naming the field', (t) => {
  const issues = (v: unknown) => {
    const r = priceConfigSchema.safeParse(v);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  t.regex(issues({ input_per_mtok: 1 }).join('\n'), /^output_per_mtok: /m);
  t.regex(issues({ input_per_mtok: -1, output_per_mtok: 1 }).join('\n'), /^input_per_mtok: /m);
  t.regex(issues({ input_per_mtok: 1, output_per_mtok: 1, cache_reads: 1 }).join('\n'), /cache_reads/);
  t.regex(
    issues({ input_per_mtok: 1, output_per_mtok: 1, tiers: [{ above_tokens: 200_000 }, { above_tokens: 100_000 }] }).join('\n'),
    /^tiers\.1\.above_tokens: expected tiers in increasing above_tokens order/m,
  );
  t.regex(issues({ input_per_mtok: 1, output_per_mtok: 1, tiers: [{ above_tokens: 1.5 }] }).join('\n'), /^tiers\.0\.above_tokens: /m);
  t.regex(
    issues({ input_per_mtok: 1, output_per_mtok: 1, changes: [{ start_date: 'soon', input_per_mtok: 1, output_per_mtok: 1 }] }).join('\n'),
    /^changes\.0\.start_date: /m,
  );
  t.regex(
    issues({
      input_per_mtok: 1,
      output_per_mtok: 1,
      changes: [
        { start_date: '2026-01-01', input_per_mtok: 1, output_per_mtok: 1 },
        { start_date: '2026-01-01', input_per_mtok: 2, output_per_mtok: 1 },
      ],
    }).join('\n'),
    /^changes\.1\.start_date: expected one change per start_date/m,
  );
});

const TABLE: PriceTable = {
  name: 'test-table 1.0',
  lookup: (kind, model) => (kind === 'openai' && model === 'gpt-4o' ? { spec: { rates: { input: 2.5, output: 10 } }, entry: 'openai/gpt-4o' } : undefined),
};

function book(
  config: Record<string, { input: number; output: number }>,
  providers: Array<{ name: string; kind?: string; pricing?: Record<string, { input: number; output: number }> }>,
) {
  const conf = (r: Record<string, { input: number; output: number }>) => Object.fromEntries(Object.entries(r).map(([m, p]) => [m, { rates: p }]));
  return new PriceBook(
    compileConfigured(conf(config), 'config'),
    providers.map((p) => ({ name: p.name, priceKind: p.kind, pricing: compileConfigured(conf(p.pricing ?? {}), 'provider') })),
    TABLE,
  );
}

test('lookup: the provider’s own price, then [pricing], then the bundled table of its kind; self-defined kinds get none', (t) => {
  const b = book({ 'gpt-4o': { input: 9, output: 9 } }, [
    { name: 'oai', kind: 'openai' },
    { name: 'az', kind: 'azure', pricing: { 'gpt-4o': { input: 2.75, output: 11 } } },
    { name: 'custom' },
  ]);
  t.like(b.priceFor('az', 'gpt-4o'), { source: 'provider', entry: 'gpt-4o' });
  t.like(b.priceFor('oai', 'gpt-4o'), { source: 'config' }, '[pricing] overrides the bundled table');
  const nb = book({}, [{ name: 'oai', kind: 'openai' }, { name: 'custom' }]);
  t.like(nb.priceFor('oai', 'gpt-4o'), { source: 'bundled', entry: 'openai/gpt-4o', table: 'test-table 1.0' });
  t.is(nb.priceFor('custom', 'gpt-4o'), null);
  t.is(nb.priceFor('oai', 'gpt-4o'), nb.priceFor('oai', 'gpt-4o'), 'remembered for the snapshot');
});

test('lookup: a fallback-served model at its own price, else the requested model’s, else the client’s alias name', (t) => {
  const b = book({ asked: { input: 1, output: 1 }, alias: { input: 2, output: 2 } }, [{ name: 'p' }]);
  t.is(b.priceFor('p', 'served', 'asked', 'alias')?.entry, 'asked');
  t.is(b.priceFor('p', 'served', 'other', 'alias')?.entry, 'alias');
  t.is(b.priceFor('p', 'served'), null);
  t.is(b.priceFor('p', 'constructor'), null, 'a model id is never an Object.prototype key');
});

test('the reservation prices the dearest member serving the model; null when none is priced', (t) => {
  const b = book({}, [{ name: 'cheap', pricing: { m: { input: 1, output: 1 } } }, { name: 'dear', pricing: { m: { input: 3, output: 4 } } }, { name: 'none' }]);
  const members = (...names: string[]) => names.map((name) => ({ provider: { name } }));
  t.is(b.maxCost('m', members('cheap', 'dear', 'none'), 1e6, 1e6, NOW), 7);
  t.is(b.maxCost('m', members('none'), 1e6, 1e6, NOW), null);
  t.true(b.priced('m', members('none', 'cheap')));
  t.false(b.priced('m', members('none')));
});
