/**
 * The soak's helpers: warm-up length, RSS growth after it, a gauge from gw's /metrics text.
 * `npx ava --config bench/ava.config.js`.
 */
import test from 'ava';
import { promValue, rssGrowth, warmupSeconds } from '../memory.ts';

test('warmupSeconds: 2 minutes of 10, a fifth of shorter runs, at least two cache TTLs, at most half the run', (t) => {
  t.is(warmupSeconds(600), 120);
  t.is(warmupSeconds(3600), 120);
  t.is(warmupSeconds(180), 36);
  t.is(warmupSeconds(600, 60), 120);
  t.is(warmupSeconds(600, 100), 200);
  t.is(warmupSeconds(600, 300), 300);
  t.is(warmupSeconds(180, 60), 90);
});

test('rssGrowth compares the mean of the minute after the warm-up with the mean of the last minute', (t) => {
  // every 10 s for 5 minutes; a spike every minute (a compaction) must not decide the verdict
  const s = Array.from({ length: 31 }, (_, i) => ({ t: i * 10, rssMiB: 100 + (i % 6 === 0 ? 40 : 0) + (i >= 24 ? 10 : 0), anonMiB: 50 }));
  const g = rssGrowth(s, 60)!;
  t.deepEqual([g.ref.from, g.ref.to, g.last.from, g.last.to], [60, 120, 240, 300]);
  // [60, 120): 140, 100 x 5 → 106.67; [240, 300]: 150, 110 x 5, 150 → 121.43
  t.is(Math.round(g.ref.rssMiB * 100), 10667);
  t.is(Math.round(g.last.rssMiB * 100), 12143);
  t.is(g.last.anonMiB, 50);
  t.is(g.last.fileMiB, undefined);
  t.is(g.maxRssMiB, 150);
  t.is(Math.round(g.growth * 1000), 138);
  // no whole minute after the warm-up: too short to tell
  t.is(rssGrowth(s, 250), undefined);
  t.is(rssGrowth([], 0), undefined);
});

test('promValue reads an unlabelled sample, skips labelled series and look-alike names', (t) => {
  const text = `# HELP gw_nodejs_heap_size_used_bytes x
# TYPE gw_nodejs_heap_size_used_bytes gauge
gw_nodejs_heap_size_used_bytes_extra 1
gw_nodejs_heap_size_used_bytes{space="old"} 2
gw_nodejs_heap_size_used_bytes 12345678
`;
  t.is(promValue(text, 'gw_nodejs_heap_size_used_bytes'), 12345678);
  t.is(promValue(text, 'gw_process_resident_memory_bytes'), undefined);
});
