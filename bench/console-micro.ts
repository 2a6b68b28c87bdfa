/**
 * `node bench/console-micro.ts`: the console's store work per request, without HTTP, so the
 * number does not drown in the load generator's and the upstream's noise on a small shared
 * machine. Drives the real usage and request_log extensions (their hooks, on a real LevelDB
 * store) with synthetic finished requests, `concurrency` per event-loop turn, and reports
 * process CPU (every thread: LevelDB's writer and compactions included) per request for
 * usage alone (retention_days = 0) and for usage with hour buckets + the request log.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestContext } from '../core/context.ts';
import { createHooks, type FinishedRequest, ResponseInfo } from '../core/hooks.ts';
import { createLogger } from '../server/log.ts';
import type { ExtensionPlugin } from '../core/plugins/contract.ts';
import { microGateway, setupExtension } from './micro-gateway.ts';
import { keyInfo } from '../lib/keys.ts';
import { openLevelStore } from '../plugins/stores/level/level.ts';
import requestLog from '../plugins/extensions/request_log/index.ts';
import usage from '../plugins/extensions/usage/index.ts';

const N = Number(process.env.MICRO_REQUESTS ?? 40_000);
const CONCURRENCY = Number(process.env.MICRO_CONCURRENCY ?? 10);
const log = createLogger('error');
const KEY = keyInfo('default');
const info = microGateway(KEY, 'm', { maxCost: (_m, prompt, output) => (prompt * 1 + output * 2) / 1e6 });

async function run(label: string, sections: Array<[ExtensionPlugin<any>, Record<string, unknown>]>): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-micro-'));
  const store = await openLevelStore(dir);
  const hooks = createHooks();
  const handles = [];
  for (const [plugin, section] of sections) handles.push(await setupExtension(plugin, section, hooks, info, log, store.namespace(`ext:${plugin.name}`)));
  const one = async (i: number) => {
    const t0 = performance.now();
    const rc = new RequestContext(
      `req-${i}`,
      { route: 'chat', format: 'openai-chat', operation: 'generate', model: 'm', stream: false },
      KEY,
      { model: 'm' },
      '{"model":"m"}',
      'm',
      t0,
      log,
    );
    rc.provider = 'upstream';
    rc.attempts = 1;
    rc.status = 200;
    rc.upstreamMs = 1.5;
    rc.usage = { prompt_tokens: 20, completion_tokens: 30, total_tokens: 50 };
    await hooks.onResponse.promise(rc, ResponseInfo.STREAM);
    const f: FinishedRequest = {
      id: rc.id,
      route: 'chat',
      time: performance.timeOrigin + t0,
      totalMs: 2,
      ttfbMs: 2,
      status: 200,
      key: rc.key,
      model: 'm',
      rc,
      error: undefined,
      rawBody: rc.rawBody,
    };
    if (hooks.onFinish.isUsed()) hooks.onFinish.call(f);
  };
  const pass = async (from: number, to: number) => {
    for (let i = from; i < to; i += CONCURRENCY) await Promise.all(Array.from({ length: Math.min(CONCURRENCY, to - i) }, (_, j) => one(i + j)));
  };
  await pass(0, 2000); // warm-up
  const c0 = process.cpuUsage();
  await pass(2000, 2000 + N);
  for (const h of handles) await h?.close?.();
  const c = process.cpuUsage(c0);
  await store.close();
  await rm(dir, { recursive: true, force: true });
  const ms = (c.user + c.system) / 1000 / N;
  process.stdout.write(`${label.padEnd(44)} ${(ms * 1000).toFixed(1).padStart(6)} µs CPU per request\n`);
  return ms;
}

process.stdout.write(`${N} requests, ${CONCURRENCY} per event-loop turn, LevelDB store\n`);
const deltas: number[] = [];
for (let round = 0; round < 3; round++) {
  const base = await run('usage alone (retention_days = 0)', [[usage, { retention_days: 0 }]]);
  const full = await run('usage + hour buckets + request_log', [
    [usage, {}],
    [requestLog, {}],
  ]);
  deltas.push(full - base);
}
deltas.sort((a, b) => a - b);
process.stdout.write(
  `console cost per request: median ${(deltas[1]! * 1000).toFixed(1)} µs (runs: ${deltas.map((d) => (d * 1000).toFixed(1)).join(', ')} µs)\n`,
);
