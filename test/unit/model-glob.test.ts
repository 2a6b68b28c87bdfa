/**
 * The model patterns of virtual keys (lib/model-glob.ts): `*` matches any run of
 * characters, everything else itself, whole id, case-sensitive; the fast paths agree with
 * the general walk and with a regular-expression reference on random inputs.
 */
import test from 'ava';
import fc from 'fast-check';
import { ALLOW_ALL, compileModelPatterns, globMatch } from '../../lib/model-glob.ts';

test('prefix, suffix, infix and exact patterns', (t) => {
  const allows = compileModelPatterns(['gpt-4o*', 'claude-*', '*:free', 'gemini-*-flash', 'o3']);
  for (const m of [
    'gpt-4o',
    'gpt-4o-mini',
    'gpt-4o-2024-08-06',
    'claude-sonnet-4-5',
    'claude-',
    'llama:free',
    ':free',
    'gemini-2.5-flash',
    'gemini--flash',
    'o3',
  ])
    t.true(allows(m), m);
  for (const m of ['gpt-4', 'GPT-4o', 'xgpt-4o', 'claude', 'anthropic/claude-3', 'llama:freex', 'gemini-2.5-flash-lite', 'gemini-flash', 'o3-mini', 'o', ''])
    t.false(allows(m), m);
});

test('`*` alone allows every model (the same matcher as no patterns); patterns are literal except for `*`', (t) => {
  t.is(compileModelPatterns(['gpt-4o', '*']), ALLOW_ALL);
  const allows = compileModelPatterns(['a.b?[c]+(d)|e$^', 'x\\y']);
  t.true(allows('a.b?[c]+(d)|e$^'));
  t.false(allows('aXb?[c]+(d)|e$^'));
  t.true(allows('x\\y'));
  // `/` and `:` are ordinary characters that `*` spans (provider-prefixed ids)
  const slash = compileModelPatterns(['openai/*', 'accounts/*/models/llama-*']);
  t.true(slash('openai/gpt-4o/2024'));
  t.true(slash('accounts/fireworks/models/llama-v3'));
  t.false(slash('accounts/fireworks/models/mixtral'));
});

test('several stars, adjacent stars and backtracking cases', (t) => {
  t.true(globMatch('a*b*c', 'abc'));
  t.true(globMatch('a*b*c', 'aXXbYYc'));
  t.true(globMatch('a*b*c', 'abbbcbc'));
  t.false(globMatch('a*b*c', 'abcx'));
  t.true(globMatch('**a**', 'bab'));
  t.true(globMatch('*', ''));
  t.false(globMatch('a*', ''));
  t.true(globMatch('*aab', 'aaab'));
  // a pattern that makes a backtracking regex explode is a bounded walk here
  t.false(globMatch('*a*a*a*a*a*a*a*a*c', `${'a'.repeat(5000)}b`));
  t.true(globMatch('*a*a*a*a*a*a*a*a*b', `${'a'.repeat(5000)}b`));
});

/** A reference implementation: the pattern as an anchored regular expression. */
function reference(pattern: string, text: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*')}$`,
  );
  return re.test(text);
}

test('property: the compiled matcher and the wildcard walk agree with the reference on random patterns and ids', (t) => {
  const alphabet = fc.constantFrom('a', 'b', '-', '*', '/');
  const pattern = fc
    .array(alphabet, { maxLength: 8 })
    .map((cs) => cs.join(''))
    .filter((p) => p.length > 0);
  const id = fc.array(fc.constantFrom('a', 'b', '-', '/'), { maxLength: 10 }).map((cs) => cs.join(''));
  fc.assert(
    fc.property(fc.array(pattern, { minLength: 1, maxLength: 4 }), id, (patterns, m) => {
      const want = patterns.some((p) => reference(p, m));
      return compileModelPatterns(patterns)(m) === want && patterns.every((p) => globMatch(p, m) === reference(p, m));
    }),
    { numRuns: 3000 },
  );
  t.pass();
});
