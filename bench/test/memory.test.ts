/**
 * The soak's helpers: warm-up length, RSS growth after it, a gauge from gw's /metrics text.
 * `npx ava --config bench/ava.config.js`.
 */
import test from 'ava';
import { promValue, rssGrowth, warmupSeconds } from '../memory.ts';

test('warmupSeconds: 2 minutes of 10, a fifth of shorter runs', (t) => {
  t.is(warmupSeconds(600), 120);
  t.is(warmupSeconds(3600), 120);
  t.is(warmupSeconds(180), 36);
});

test('rssGrowth compares the last sample with the first one after the warm-up', (t) => {
  const s = [0, 30, 60, 90, 120].map((time, i) => ({ t: time, rssMiB: [100, 200, 210, 250, 220][i]! }));
  const g = rssGrowth(s, 36)!;
  t.is(g.ref.t, 60);
  t.is(g.last.t, 120);
  t.is(g.maxRssMiB, 250);
  t.is(Math.round(g.growth * 1000), 48);
  t.is(rssGrowth(s, 120), undefined);
  t.is(rssGrowth(s, 500), undefined);
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
