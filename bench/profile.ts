/**
 * `npm run bench -- --profile`: gw under the non-streaming 50-connection load with
 * `node --cpu-prof`, after BENCH_PROFILE_WARMUP_SECONDS (15) of the same load, then the
 * profile of the measured window summarised (bench/cpuprofile-top.ts). The profile
 * is written when gw exits after SIGTERM; its path is printed. BENCH_PROFILE_SCENARIO
 * picks another scenario (default json-c50), BENCH_PROFILE_CONNECTIONS its connections.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatSummary, readProfileIn, summarizeProfile, windowOf } from './cpuprofile-top.ts';
import { runLoad } from './load.ts';
import { envNumber, toTarget } from './options.ts';
import { stopAll } from './procs.ts';
import { scenarios } from './scenarios.ts';
import { ROOT, startGw, startUpstream } from './setup.ts';

/** Runs the profile and prints the summary (also written to bench/profile.txt). */
export async function runProfile(): Promise<void> {
  const name = process.env.BENCH_PROFILE_SCENARIO ?? 'json-c50';
  const s = scenarios.find((x) => x.name === name);
  if (!s) throw new Error(`no scenario '${name}'`);
  const seconds = envNumber('BENCH_SECONDS', 5);
  const warmup = envNumber('BENCH_PROFILE_WARMUP_SECONDS', 15);
  const connections = envNumber('BENCH_PROFILE_CONNECTIONS', s.connections);
  const dir = await mkdtemp(join(tmpdir(), 'gw-prof-'));
  try {
    const up = await startUpstream();
    const gw = await startGw(s.gw, up.url, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    const target = toTarget(gw.url, s.request, true);
    // a fresh process is profiled warm: V8 tiers gw's hot path up over its first ~10 s of load
    await runLoad(target, connections, warmup);
    const t0 = process.hrtime.bigint();
    const load = await runLoad(target, connections, seconds);
    const t1 = process.hrtime.bigint();
    await gw.stop();
    const { file, profile } = await readProfileIn(dir);
    // only the measured window: startup, warm-up and shutdown are left out
    const window = windowOf(profile, t0, t1);
    const text = `profile of gw under ${s.name} (${s.what}), ${seconds} s after ${warmup} s warm-up: ${load.requests} requests, ${load.rps.toFixed(0)} req/s under the profiler
file: ${file} (samples ${window.fromMs.toFixed(0)}–${window.toMs.toFixed(0)} ms after the profile start summarised)

${formatSummary(summarizeProfile(profile, window), 15, load.requests)}`;
    process.stdout.write(text);
    await writeFile(join(ROOT, 'bench/profile.txt'), text);
    process.stdout.write('\nwritten: bench/profile.txt\n');
  } finally {
    await stopAll();
  }
}
