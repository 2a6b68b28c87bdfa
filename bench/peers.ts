/**
 * `npx node --conditions=gw-source bench/peers.ts` (after `npm run build`), with
 * `PORTKEY_GATEWAY=<folder of an installed @portkey-ai/gateway>`: the three-way bar of issue 43.
 * The bare-proxy floor (floor-proxy.ts), gw without extensions and Portkey's open-source gateway
 * in front of the same upstream, each warmed (`BENCH_PROCESS_WARMUP_SECONDS`, 15, at c=50),
 * then the bench's non-streaming chat at 50 connections in ABCCBA cycles (`PEERS_CYCLES`, 3, of
 * `BENCH_SECONDS`, 4): req/s and CPU per request of each pooled, and each cycle's gw / floor and
 * gw / Portkey. Portkey is not a dependency of gw: install it apart, e.g.
 * `npm i --prefix /tmp/portkey @portkey-ai/gateway@1.15.2`, then
 * `PORTKEY_GATEWAY=/tmp/portkey/node_modules/@portkey-ai/gateway`. Portkey routes by headers
 * (`x-portkey-provider: openai`, `x-portkey-custom-host: <upstream>/v1`); it runs with
 * `NODE_ENV=production --headless` (no console UI).
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type Pooled, pool } from './headline.ts';
import type { Target } from './load.ts';
import { runLoad } from './load.ts';
import { measurePhase, type PhaseResult } from './measure.ts';
import { envNumber, toTarget } from './options.ts';
import { startChild, stopAll } from './procs.ts';
import { chat, chatPath, plain } from './scenarios.ts';
import { startFloor, startGw, startUpstream } from './setup.ts';

const CYCLES = Math.max(1, Math.round(envNumber('PEERS_CYCLES', 3)));
const SECONDS = envNumber('BENCH_SECONDS', 4);
const WARMUP = envNumber('BENCH_PROCESS_WARMUP_SECONDS', 15);
const CONNECTIONS = 50;

const portkeyDir = process.env.PORTKEY_GATEWAY;
const portkeyServer = portkeyDir && join(portkeyDir, 'build/start-server.js');
if (!portkeyServer || !existsSync(portkeyServer)) {
  throw new Error('bench/peers.ts: set PORTKEY_GATEWAY to an installed @portkey-ai/gateway (npm i --prefix /tmp/portkey @portkey-ai/gateway@1.15.2)');
}

/** A port free now (Portkey takes its port on the command line). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const request = { path: chatPath, body: chat };
try {
  const up = await startUpstream();
  const floor = await startFloor(up.url);
  const gw = await startGw(plain, up.url);
  const port = await freePort();
  const portkey = await startChild('portkey', [portkeyServer, `--port=${port}`, '--headless'], /Ready for connections/, {
    env: { NODE_ENV: 'production' },
    timeoutMs: 60_000,
  });
  const portkeyTarget: Target = toTarget(`http://127.0.0.1:${port}`, request, false);
  portkeyTarget.headers = {
    ...portkeyTarget.headers,
    authorization: 'Bearer sk-bench',
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `${up.url}/v1`,
  };
  const sides = [
    { name: 'floor', pid: floor.child.proc.pid!, target: toTarget(floor.url, request, false), runs: [] as PhaseResult[] },
    { name: 'gw', pid: gw.child.proc.pid!, target: toTarget(gw.url, request, true), runs: [] as PhaseResult[] },
    { name: 'portkey', pid: portkey.proc.pid!, target: portkeyTarget, runs: [] as PhaseResult[] },
  ];
  process.stderr.write(`peers: warming each process ${WARMUP} s…\n`);
  for (const s of sides) await runLoad(s.target, CONNECTIONS, WARMUP);
  for (let c = 0; c < CYCLES; c++)
    for (const s of [...sides, ...sides.toReversed()]) {
      const r = await measurePhase(s.target, {
        connections: CONNECTIONS,
        seconds: SECONDS,
        warmupSeconds: 0,
        streams: 0,
        streamConcurrency: 1,
        upstreamPid: up.child.proc.pid!,
        upstreamCalls: up.calls,
        gwPid: s.pid,
      });
      if (r.load.errors + r.load.non2xx > 0) throw new Error(`${s.name}: ${r.load.errors} errors, ${r.load.non2xx} non-2xx`);
      s.runs.push(r);
    }
  const pooled = new Map<string, Pooled>(sides.map((s) => [s.name, pool(s.runs)]));
  const cycleRps = (name: string, c: number) => {
    const runs = sides.find((s) => s.name === name)!.runs.slice(2 * c, 2 * c + 2);
    return runs.reduce((n, r) => n + r.load.requests, 0) / runs.reduce((n, r) => n + r.load.seconds, 0);
  };
  const perCycle = (a: string, b: string) => Array.from({ length: CYCLES }, (_, c) => (cycleRps(a, c) / cycleRps(b, c)).toFixed(2)).join(' ');
  const p = (name: string) => pooled.get(name)!;
  const lines = [
    `peers: c=${CONNECTIONS} non-streaming chat, ${CYCLES} ABCCBA cycles of ${SECONDS} s after ${WARMUP} s warm-up each`,
    ...sides.map((s) => `  ${s.name.padEnd(8)} ${p(s.name).rps.toFixed(0).padStart(6)} req/s  ${p(s.name).cpuMsPerReq.toFixed(3)} ms CPU/req`),
    `  gw / floor    ${(p('gw').rps / p('floor').rps).toFixed(2)}x (per cycle ${perCycle('gw', 'floor')}); CPU ${(p('gw').cpuMsPerReq / p('floor').cpuMsPerReq).toFixed(2)}x the floor's`,
    `  gw / Portkey  ${(p('gw').rps / p('portkey').rps).toFixed(2)}x (per cycle ${perCycle('gw', 'portkey')}); CPU ${(p('gw').cpuMsPerReq / p('portkey').cpuMsPerReq).toFixed(2)}x Portkey's`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await stopAll();
}
