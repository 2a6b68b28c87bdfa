/**
 * cutText (lib/cut-text.ts, `gw/plugin`): a value within its bound is itself; past it, its
 * first characters and `…`, never half a surrogate pair, in a string of its own (a cut kept for
 * long must not keep the megabyte it was cut from).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import test from 'ava';
import { CUT_MARK, cutText } from '../../lib/cut-text.ts';

test('within the bound a value is itself; past it, its first characters and the mark', (t) => {
  const s = 'gpt-4o';
  t.is(cutText(s, 6), s);
  t.is(cutText('abcdefgh', 3), `abc${CUT_MARK}`);
  t.is(cutText('', 0), '');
});

test('a cut never splits a surrogate pair', (t) => {
  const emoji = '😀'; // two UTF-16 code units
  t.is(cutText(`ab${emoji}cd`, 3), `ab${CUT_MARK}`);
  t.is(cutText(`ab${emoji}cd`, 4), `ab${emoji}${CUT_MARK}`);
  t.false(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(cutText(`ab${emoji}cd`, 3)));
});

test('200 cuts of 1 MiB strings keep kilobytes, not the 200 MiB they were cut from', (t) => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept: string[] = [];
  for (let i = 0; i < 200; i++) kept.push(cutText(String(i).padEnd(1 << 20, 'x'), 256));
  gc();
  gc();
  const grown = (process.memoryUsage().heapUsed - before) / 1048576;
  t.is(kept.length, 200);
  t.is(kept[7]!.length, 257);
  t.true(grown < 16, `heap grew by ${grown.toFixed(1)} MiB`);
});
