/**
 * `npx node --conditions=gw-source bench/otel-micro.ts`: the otel extension's CPU per
 * request, in process, part by part (the HTTP bench's `--only otel` measures the whole but
 * swings by a third on a small shared machine). Drives the real extension's taps with
 * synthetic requests of the bench's JSON chat shape (arrival, one attempt, the answer,
 * finish), exporting over OTLP/protobuf to a sink in a child process (its CPU is not
 * counted; this process's is, every thread: GC helpers and the exporter's HTTP included).
 * Variants: no extension; unsampled without and with metrics; sampled without and with
 * metrics. ABBA against "none" per cycle; reported as added µs of CPU per request (median
 * cycle) and added KB allocated per request (V8's sampling heap profiler, garbage included:
 * what the young generation's collections pay for under load).
 * Knobs: MICRO_REQUESTS (100000), MICRO_CYCLES (3), MICRO_ONLY (variants whose name has it),
 * MICRO_TOP (that many top allocating functions per variant), MICRO_OTEL (JSON merged into
 * the section, e.g. '{"protocol":"http/json"}').
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Session } from 'node:inspector/promises';
import { setImmediate as turn } from 'node:timers/promises';
import { createHooks } from '../core/hooks.ts';
import otel from '../plugins/extensions/otel/index.ts';
import { createLogger } from '../server/log.ts';
import { abbaDelta } from './abba.ts';
import { microGateway, setupExtension } from './micro-gateway.ts';
import { chatRequest, KEY, MODEL } from './otel-request.ts';

const N = Number(process.env.MICRO_REQUESTS ?? 100_000);
const CYCLES = Number(process.env.MICRO_CYCLES ?? 3);
/** Requests before the measured ones in each run (the JIT settles; the SDK's exporter connects). */
const WARM = 5000;
const log = createLogger('error');
const info = microGateway(KEY, MODEL);

/** A variant: the extension's section, or none. */
type Variant = { name: string; section: Record<string, unknown> | undefined };

async function sink(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('node:http').createServer((q,s)=>{q.resume();q.on('end',()=>s.writeHead(200,{'content-type':'application/x-protobuf'}).end())}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${line.toString().trim()}`, child };
}

/** CPU per request, µs, of N requests through the variant's taps. */
async function run(v: Variant, url: string): Promise<number> {
  const hooks = createHooks();
  const section = { endpoint: url, metrics_interval_ms: 5000, ...v.section, ...JSON.parse(process.env.MICRO_OTEL ?? '{}') };
  const handle = v.section ? await setupExtension(otel, section, hooks, info, log) : undefined;
  const one = (i: number) => chatRequest(hooks, i, log);
  const pass = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      await one(i);
      // let exports and their answers run, as a serving gateway would between requests
      if (i % 200 === 199) await turn();
    }
  };
  await pass(0, WARM);
  const c0 = process.cpuUsage();
  await pass(WARM, WARM + N);
  const c = process.cpuUsage(c0);
  await handle?.close?.();
  return (c.user + c.system) / N;
}

const VARIANTS: Variant[] = [
  { name: 'unsampled, metrics off', section: { sampling_ratio: 0, metrics: false } },
  { name: 'unsampled, metrics on', section: { sampling_ratio: 0, metrics: true } },
  { name: 'sampled, metrics off', section: { sampling_ratio: 1, metrics: false } },
  { name: 'sampled, metrics on', section: { sampling_ratio: 1, metrics: true } },
];
const NONE: Variant = { name: 'none', section: undefined };

type ProfileNode = { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: ProfileNode[] };

/**
 * Bytes allocated per request by the variant (garbage included: V8's sampling heap profiler
 * keeps the samples of collected objects too), and the functions allocating most.
 */
async function allocation(v: Variant, url: string, top: number): Promise<{ kbPerRequest: number; top: string[] }> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await run(v, url);
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
  session.disconnect();
  const self = new Map<string, number>();
  let all = 0;
  const walk = (n: ProfileNode) => {
    const where = n.callFrame.url.replace(/.*node_modules\//, '').replace(/^file:\/\/.*?\/(plugins|core|bench|sdk|protocols)\//, '$1/');
    const k = `${n.callFrame.functionName || '(anonymous)'} ${where}:${n.callFrame.lineNumber + 1}`;
    self.set(k, (self.get(k) ?? 0) + n.selfSize);
    all += n.selfSize;
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
  // warm-up and measured requests both ran under the profiler
  const kb = (b: number) => b / (N + WARM) / 1024;
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  return { kbPerRequest: kb(all), top: rows.map(([k, b]) => `${kb(b).toFixed(2).padStart(7)} KB  ${k}`) };
}

const only = process.env.MICRO_ONLY;
const top = Number(process.env.MICRO_TOP ?? 0);
const { url, child } = await sink();
try {
  const base = await allocation(NONE, url, 0);
  process.stdout.write(`otel-micro: the otel extension's cost per request, in process, ${N} requests per run, ABBA × ${CYCLES} against none\n`);
  for (const v of VARIANTS) {
    if (only && !v.name.includes(only)) continue;
    const cpu = await abbaDelta(
      CYCLES,
      () => run(NONE, url),
      () => run(v, url),
    );
    const alloc = await allocation(v, url, top);
    process.stdout.write(
      `  ${v.name.padEnd(24)} +${cpu.median.toFixed(2).padStart(6)} µs CPU  +${(alloc.kbPerRequest - base.kbPerRequest).toFixed(1).padStart(5)} KB allocated  (CPU cycles: ${cpu.cycles.map((d) => d.toFixed(2)).join(', ')} µs)\n`,
    );
    for (const line of alloc.top) process.stdout.write(`      ${line}\n`);
  }
} finally {
  child.kill();
}
