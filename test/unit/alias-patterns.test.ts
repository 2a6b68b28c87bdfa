/**
 * Alias patterns (lib/alias-patterns.ts) and their place in the routing table
 * (core/routing.ts): the winner among patterns, its independence from the order they were
 * written in, exact names before any pattern, and the bounded memory of resolved names.
 */
import test from 'ava';
import fc from 'fast-check';
import { AliasPatterns, comparePatterns, RESOLVED_CACHE_MAX } from '../../lib/alias-patterns.ts';
import { globMatch } from '../../lib/model-glob.ts';
import { RoutingTable } from '../../core/routing.ts';

const PATTERNS: Array<[string, string]> = [
  ['*', 'default'],
  ['claude-*', 'qwen-plus'],
  ['claude-haiku-*', 'qwen-flash'],
  ['*-codex', 'codex-target'],
  ['claude-*-4-5', 'four-five'],
  ['*-4-5*', 'star-both'],
];

test('the longest pattern wins; equal lengths go to fewer `*`, then code-unit order', (t) => {
  const p = new AliasPatterns(PATTERNS);
  t.is(p.match('claude-opus-4-1-20250805[1m]')?.target, 'qwen-plus');
  t.is(p.match('claude-haiku-4-5-20251001')?.target, 'qwen-flash');
  t.is(p.match('claude-sonnet-4-5')?.target, 'four-five');
  t.is(p.match('gpt-5-codex')?.target, 'codex-target');
  t.is(p.match('o4-mini')?.target, 'default');
  t.is(p.match('')?.target, 'default');
  // same length (8): "claude-*" has one star, "*-4-5-**" would have three
  t.true(comparePatterns('claude-*', '*-4-5-**') < 0);
  // same length and stars: code-unit order
  t.true(comparePatterns('a-*', 'b-*') < 0);
  t.is(comparePatterns('a-*', 'a-*'), 0);
  t.is(new AliasPatterns([]).match('x'), undefined);
});

test('the winner does not depend on the order patterns were written in, and it matches', (t) => {
  const pattern = fc.stringMatching(/^[ab*-]{0,6}$/);
  fc.assert(
    fc.property(fc.uniqueArray(pattern, { minLength: 1, maxLength: 8 }), fc.stringMatching(/^[ab-]{0,8}$/), (patterns, name) => {
      const entries = patterns.map((p) => [p, `t:${p}`] as [string, string]);
      const forward = new AliasPatterns(entries).match(name);
      const backward = new AliasPatterns([...entries].reverse()).match(name);
      const matching = patterns.filter((p) => globMatch(p, name)).sort(comparePatterns);
      return forward?.pattern === matching[0] && backward?.pattern === matching[0];
    }),
  );
  t.pass();
});

test('resolved names are remembered up to a bound, oldest first out', (t) => {
  const p = new AliasPatterns([['m-*', 'x']]);
  for (let i = 0; i < RESOLVED_CACHE_MAX + 10; i++) t.is(p.match(`m-${i}`)?.target, 'x');
  const size = (p as unknown as { resolved: Map<string, unknown> }).resolved.size;
  t.is(size, RESOLVED_CACHE_MAX);
  t.is(p.match('m-0')?.target, 'x', 'an evicted name resolves again');
  t.is(p.match('n-0'), undefined);
});

test('routing table: exact aliases and model ids before patterns; patterns are not listed', (t) => {
  const provider = { name: 'p', kind: 'openai', models: ['qwen-plus', 'claude-sonnet-4-5', 'default'] };
  const member = { provider, settings: { maxRetries: 0, weight: 1 } } as never;
  const table = new RoutingTable([member], { 'claude-*': 'qwen-plus', '*': 'default', 'claude-opus-4': 'default' }, { strategy: 'round_robin', models: {} });
  t.is(table.resolve('claude-sonnet-4-5'), 'claude-sonnet-4-5', 'a model id is exact');
  t.is(table.resolve('claude-opus-4'), 'default', 'an exact alias beats claude-*');
  t.is(table.resolve('claude-opus-4-1'), 'qwen-plus');
  t.is(table.resolve('anything'), 'default');
  t.is(table.patternFor('claude-opus-4-1'), 'claude-*');
  t.is(table.patternFor('claude-opus-4'), undefined);
  t.deepEqual(table.aliasEntries(), [['claude-opus-4', 'default']]);
  t.false(table.closeMatches('claude-').some((m) => m.includes('*')));
});
