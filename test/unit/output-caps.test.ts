import test from 'ava';
import { compileOutputCaps } from '../../lib/output-caps.ts';

test('one number caps every model; no setting, no cap', (t) => {
  t.is(compileOutputCaps(65536)!('anything'), 65536);
  t.is(compileOutputCaps(undefined), undefined);
});

test('by model: an exact id first, then the longest pattern, then the one with fewer *', (t) => {
  const cap = compileOutputCaps({ '*': 8192, 'gpt-4o*': 16384, 'gpt-4o-mini': 4096, 'gpt-*': 32768, '*-mini*': 1000, 'o*-*': 100_000 })!;
  t.is(cap('gpt-4o-mini'), 4096, 'exact');
  t.is(cap('gpt-4o-2024-08-06'), 16384, 'gpt-4o* is longer than gpt-* and *');
  t.is(cap('gpt-4o-mini-2024-07-18'), 16384, 'gpt-4o* (7) over *-mini* (7 with two *)');
  t.is(cap('gpt-5'), 32768);
  t.is(cap('o4-mini'), 1000, '*-mini* (7) over o*-* (4)');
  t.is(cap('claude-sonnet-4-6'), 8192, '* last');
  t.is(compileOutputCaps({ 'qwen3-*': 65536 })!('glm-4.6'), undefined, 'no pattern matches: no cap');
});
