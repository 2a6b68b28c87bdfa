/**
 * `npm run bench` end to end, cut short: two scenarios for a fraction of a second each,
 * checking that gw really was in the path (upstream calls per request, gw CPU and RSS read).
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScenarioResult } from '../report.ts';

const RUN = fileURLToPath(new URL('../run.ts', import.meta.url));

test('a short run measures direct and gw and writes the results', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-bench-test-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, 'results.json');
  const env = { ...process.env, BENCH_SECONDS: '0.4', BENCH_WARMUP_SECONDS: '0.1', BENCH_STREAMS: '10', BENCH_OUT: out };
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [RUN, '--only', 'json-c1,stream-c1'], { env, timeout: 45_000 }, (err, so, se) =>
      err ? reject(new Error(`${err.message}\n${se}`)) : resolve(so),
    );
  });
  t.regex(stdout, /LOG_LEVEL=warn/);
  t.regex(stdout, /json-c1 — /);
  const res = JSON.parse(await readFile(out, 'utf8')) as { scenarios: ScenarioResult[] };
  t.deepEqual(
    res.scenarios.map((s) => [s.name, s.status]),
    [
      ['json-c1', 'ok'],
      ['stream-c1', 'ok'],
    ],
  );
  for (const s of res.scenarios) {
    t.true(s.gw!.load.requests > 0 && s.direct!.load.requests > 0);
    t.is(s.gw!.load.errors + s.gw!.load.non2xx, 0);
    // every gw request reached the upstream exactly once (in-flight ones at the cut may add a little)
    t.true(s.gw!.upstreamCallsPerReq >= 1 && s.gw!.upstreamCallsPerReq < 1.1, String(s.gw!.upstreamCallsPerReq));
    t.true(s.gw!.gwCpuMsPerReq! > 0);
    t.true(s.gw!.gwRssMiB! > 10);
    t.is(typeof s.vsDirect!.rpsRatio, 'number');
  }
  const stream = res.scenarios[1]!;
  t.is(stream.gw!.streams!.errors, 0);
  t.is(stream.gw!.streams!.frames, 21); // 20 chunks + [DONE]
  t.true(stream.gw!.streams!.ttfbP50 > 0);
});
