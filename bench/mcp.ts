/**
 * `npm run bench -- --only mcp` (or `node --conditions=gw-source bench/mcp.ts`): what gw's MCP
 * gateway adds to one `tools/call`. An SDK McpServer over streamable HTTP (`mcp-upstream.ts`,
 * a child process) is called by the SDK's own client (1.x, 2025-11-25, one session each)
 * directly and through gw (a child process, `[mcp_servers.bench]`, the key's `mcp_tools`), one
 * call at a time; a 2026-07-28 client (SDK 2.x, stateless) calls through gw too. Each client
 * is warmed, then the sides are measured in ABBA order (direct, gw, gw, direct per cycle), and
 * each cycle reports the p50/p95 of its calls and gw's added p50. Aim: ≤ 1 ms added p50.
 * Knobs: BENCH_MCP_CYCLES (3), BENCH_MCP_CALLS (per phase, 1500), BENCH_MCP_WARMUP (3000 calls).
 */
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { abba } from './abba.ts';
import { envNumber } from './options.ts';
import { cpuTimes, startChild, stopAll } from './procs.ts';
import { BENCH_KEY, ROOT, startGw } from './setup.ts';

/** The name `--only` knows it by. */
export const MCP = 'mcp';

interface Side {
  name: string;
  call: () => Promise<unknown>;
  /** gw's pid (for its CPU per call), when the side goes through gw. */
  pid?: number;
}

interface Phase {
  p50: number;
  p95: number;
  /** gw CPU per call, ms (undefined for the direct side), and its kernel part. */
  cpu?: number;
  sys?: number;
}

export interface McpCycle {
  direct: { p50: number; p95: number };
  gw: { p50: number; p95: number; cpu: number; sys: number };
  /** gw's added p50, ms: the mean of its two phases minus the mean of the direct ones. */
  added: number;
}

export interface McpResult {
  /** 2025-11-25 client with a session, per cycle. */
  legacy: McpCycle[];
  /** 2026-07-28 client (stateless) through gw against the same direct client, per cycle. */
  modern: McpCycle[];
}

const note = (s: string) => process.stderr.write(`mcp: ${s}\n`);
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function phase(side: Side, calls: number): Promise<Phase> {
  const ms: number[] = [];
  const before = side.pid === undefined ? undefined : cpuTimes(side.pid);
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    await side.call();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const out: Phase = { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95) };
  if (before && side.pid !== undefined) {
    const after = cpuTimes(side.pid);
    out.cpu = (after.userMs + after.sysMs - before.userMs - before.sysMs) / calls;
    out.sys = (after.sysMs - before.sysMs) / calls;
  }
  return out;
}

/** ABBA cycles of `direct` against `through`, each phase `calls` calls. */
async function cycles(direct: Side, through: Side, n: number, calls: number): Promise<McpCycle[]> {
  const runs = await abba(direct, through, n, (s) => phase(s, calls));
  const out: McpCycle[] = [];
  for (let c = 0; c < n; c++) {
    const [d1, d2] = [runs.off[2 * c]!, runs.off[2 * c + 1]!];
    const [g1, g2] = [runs.on[2 * c]!, runs.on[2 * c + 1]!];
    out.push({
      direct: { p50: (d1.p50 + d2.p50) / 2, p95: (d1.p95 + d2.p95) / 2 },
      gw: { p50: (g1.p50 + g2.p50) / 2, p95: (g1.p95 + g2.p95) / 2, cpu: ((g1.cpu ?? 0) + (g2.cpu ?? 0)) / 2, sys: ((g1.sys ?? 0) + (g2.sys ?? 0)) / 2 },
      added: (g1.p50 + g2.p50 - d1.p50 - d2.p50) / 2,
    });
  }
  return out;
}

/** Starts the upstream and gw, measures both clients, stops everything. */
export async function measureMcp(): Promise<McpResult> {
  const n = Math.max(1, Math.round(envNumber('BENCH_MCP_CYCLES', 3)));
  const calls = Math.max(100, Math.round(envNumber('BENCH_MCP_CALLS', 1500)));
  const warm = Math.round(envNumber('BENCH_MCP_WARMUP', 3000));
  const clients: Array<{ close(): Promise<void> }> = [];
  try {
    const up = await startChild('mcp upstream', ['--conditions=gw-source', join(ROOT, 'bench/mcp-upstream.ts')], /listening on (\d+)/);
    const upUrl = `http://127.0.0.1:${up.ready[1]}/mcp`;
    const gw = await startGw(
      { id: 'mcp', toml: (url) => `[mcp_servers.bench]\nurl = "${url}"\n`, keySettings: 'mcp_tools = ["bench__*"]' },
      upUrl,
      process.env.BENCH_MCP_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_MCP_PROFILE}`] : [],
    );
    const args = { text: 'hello' };
    const legacy = async (url: string, headers: Record<string, string>) => {
      const c = new Client({ name: 'bench', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      clients.push(c);
      return c;
    };
    const direct = await legacy(upUrl, {});
    const viaGw = await legacy(`${gw.url}/mcp`, { authorization: `Bearer ${BENCH_KEY}` });
    const modern = new ModernClient({ name: 'bench', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    // gw lists the server's tools once it is up: the first calls wait for it
    await modern.connect(new ModernTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${BENCH_KEY}` } } }));
    clients.push(modern);
    const sides = {
      direct: { name: 'direct', call: () => direct.callTool({ name: 'echo', arguments: args }) },
      legacy: { name: 'gw (2025-11-25)', call: () => viaGw.callTool({ name: 'bench__echo', arguments: args }), pid: gw.child.proc.pid! },
      modern: { name: 'gw (2026-07-28)', call: () => modern.callTool({ name: 'bench__echo', arguments: args }), pid: gw.child.proc.pid! },
    };
    for (let i = 0; i < 100; i++) {
      const r = (await sides.legacy.call().catch(() => undefined)) as { isError?: boolean } | undefined;
      if (r && !r.isError) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    note(`warming each client: ${warm} calls…`);
    for (const s of Object.values(sides)) for (let i = 0; i < warm; i++) await s.call();
    note(`2025-11-25 through gw vs direct: ${n} ABBA cycles of ${calls} calls per phase…`);
    const legacyCycles = await cycles(sides.direct, sides.legacy, n, calls);
    note(`2026-07-28 through gw vs direct: ${n} ABBA cycles…`);
    const modernCycles = await cycles(sides.direct, sides.modern, n, calls);
    return { legacy: legacyCycles, modern: modernCycles };
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    await stopAll();
  }
}

/** The report: per cycle, direct and gw p50/p95 (ms), gw's CPU per call and its added p50. */
export function formatMcp(r: McpResult): string {
  const lines = ['MCP tools/call, one at a time: SDK client → SDK McpServer (streamable HTTP) directly, and through gw; ABBA cycles'];
  const row = (label: string, c: McpCycle, i: number) =>
    `${`${label} #${i + 1}`.padEnd(22)}${c.direct.p50.toFixed(3).padStart(10)}${c.direct.p95.toFixed(3).padStart(10)}${c.gw.p50.toFixed(3).padStart(10)}${c.gw.p95.toFixed(3).padStart(10)}${c.gw.cpu.toFixed(3).padStart(10)}${c.gw.sys.toFixed(3).padStart(10)}${c.added.toFixed(3).padStart(10)}`;
  lines.push(
    `${'cycle'.padEnd(22)}${'dir p50'.padStart(10)}${'dir p95'.padStart(10)}${'gw p50'.padStart(10)}${'gw p95'.padStart(10)}${'gw cpu'.padStart(10)}${'of it sys'.padStart(10)}${'+p50 ms'.padStart(10)}`,
  );
  for (const [i, c] of r.legacy.entries()) lines.push(row('2025-11-25', c, i));
  for (const [i, c] of r.modern.entries()) lines.push(row('2026-07-28', c, i));
  const med = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const legacy = med(r.legacy.map((c) => c.added));
  lines.push(
    `median added p50: ${legacy.toFixed(3)} ms (2025-11-25), ${med(r.modern.map((c) => c.added)).toFixed(3)} ms (2026-07-28); aim ≤ 1 ms: ${legacy <= 1 ? 'met' : 'MISS'}`,
  );
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await measureMcp();
  process.stdout.write(`${formatMcp(r)}\n`);
}
