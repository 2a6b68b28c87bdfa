/**
 * The usage parts: read one way, bounded by their wholes (lib/common/usage-parts.ts);
 * DashScope's explicit-cache writes under the common names (protocols/openai-chat/map-usage.ts);
 * Responses usage both ways with cache writes and their 1-hour part.
 */
import test from 'ava';
import { cachedTokens, cacheHitRate, cacheWriteTokens, reasoningTokens, type Usage } from 'gw/plugin';
import { cacheWrite1hTokens } from '../../lib/common/usage-parts.ts';
import { withCacheWrites } from 'gw/plugin/openai-chat';
import { fromResponsesUsage, toResponsesUsage } from '../../protocols/openai-responses/map-usage.ts';
import { fixtureJson } from '../helpers/upstream.ts';

const usage = (u: Partial<Usage>): Usage => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, ...u });

test('parts: as reported, 0 when left out or not a count, never more than their whole', (t) => {
  const u = usage({
    prompt_tokens: 100,
    completion_tokens: 20,
    prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 30, cache_write_1h_tokens: 10 },
    completion_tokens_details: { reasoning_tokens: 5 },
  });
  t.deepEqual([cachedTokens(u), cacheWriteTokens(u), cacheWrite1hTokens(u), reasoningTokens(u)], [60, 30, 10, 5]);
  t.deepEqual([cachedTokens(undefined), cacheWriteTokens(null), reasoningTokens(usage({}))], [0, 0, 0]);
  const odd = usage({
    prompt_tokens: 50,
    completion_tokens: 4,
    prompt_tokens_details: { cached_tokens: 45, cache_write_tokens: 20, cache_write_1h_tokens: 99 },
    completion_tokens_details: { reasoning_tokens: Number.NaN },
  });
  t.deepEqual([cachedTokens(odd), cacheWriteTokens(odd), cacheWrite1hTokens(odd), reasoningTokens(odd)], [45, 5, 5, 0]);
  t.is(reasoningTokens(usage({ completion_tokens: 3, completion_tokens_details: { reasoning_tokens: 7 } })), 3);
  t.is(cachedTokens(usage({ prompt_tokens: 10, prompt_tokens_details: { cached_tokens: -4 } })), 0);
});

test('cache hit rate: cached / prompt to 4 decimals; null without prompt tokens', (t) => {
  t.is(cacheHitRate(17, 30), 0.5667);
  t.is(cacheHitRate(0, 30), 0);
  t.is(cacheHitRate(30, 30), 1);
  t.is(cacheHitRate(0, 0), null);
  t.is(cacheHitRate(40, 30), 1, 'bounded');
});

test('DashScope explicit cache (documented usage): cache_creation_input_tokens → cache_write_tokens beside it; other shapes; nothing to add → same object', (t) => {
  const [write, hit] = fixtureJson<Usage[]>('dashscope/docs/explicit-cache.usage.json');
  const mapped = withCacheWrites(write!);
  t.not(mapped, write);
  t.deepEqual(mapped.prompt_tokens_details, { ...write!.prompt_tokens_details, cache_write_tokens: 2048 });
  t.is(cacheWriteTokens(mapped), 2048);
  t.is(withCacheWrites(hit!), hit, 'a cache hit has nothing to add');
  const nested = usage({
    prompt_tokens: 3019,
    prompt_tokens_details: { cached_tokens: 2048, cache_creation: { cache_creation_input_tokens: 500, cache_type: 'ephemeral' } },
  });
  t.is(cacheWriteTokens(withCacheWrites(nested)), 500);
  const split = usage({ prompt_tokens: 900, prompt_tokens_details: { cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 200 } } });
  t.like(withCacheWrites(split).prompt_tokens_details, { cache_write_tokens: 500, cache_write_1h_tokens: 200 });
  const already = usage({ prompt_tokens: 9, prompt_tokens_details: { cache_write_tokens: 4, cache_creation_input_tokens: 4 } });
  t.is(withCacheWrites(already), already);
});

test('Responses usage both ways: cache reads, writes and their 1-hour part, reasoning; DashScope’s prompt_tokens_details read too', (t) => {
  const u = usage({
    prompt_tokens: 1000,
    completion_tokens: 50,
    total_tokens: 1050,
    prompt_tokens_details: { cached_tokens: 700, cache_write_tokens: 200, cache_write_1h_tokens: 150 },
    completion_tokens_details: { reasoning_tokens: 20 },
  });
  const r = toResponsesUsage(u)!;
  t.deepEqual(r.input_tokens_details, { cached_tokens: 700, cache_write_tokens: 200, cache_write_1h_tokens: 150 });
  t.deepEqual(fromResponsesUsage(r), u);
  t.false('cache_write_1h_tokens' in toResponsesUsage(usage({ prompt_tokens: 5 }))!.input_tokens_details);
  // DashScope's Responses API (its Session cache docs): the chat names inside a Responses usage
  const ds = fromResponsesUsage({
    input_tokens: 1524,
    output_tokens: 1534,
    total_tokens: 3058,
    output_tokens_details: { reasoning_tokens: 1187 },
    prompt_tokens_details: {
      cache_creation: { ephemeral_5m_input_tokens: 213 },
      cache_creation_input_tokens: 213,
      cache_type: 'ephemeral',
      cached_tokens: 1305,
    },
  })!;
  t.deepEqual([ds.prompt_tokens, cachedTokens(ds), cacheWriteTokens(ds), reasoningTokens(ds)], [1524, 1305, 213, 1187]);
});
