/**
 * `npx node --conditions=gw-source bench/slices.ts [otel|young-gen|trees <other checkout>]`
 * (after `npm run build`, in both trees for `trees`): gw CPU per request of several gw
 * setups, each its own process, loaded one after the other in short slices: where the otel
 * extension's cost goes (`otel`, the default), what V8's young-generation size does to CPU
 * and peak RSS (`young-gen`), or what a change costs against another checkout of gw
 * (`trees`, e.g. a `git worktree` of the previous commit with its own `npm ci`).
 *
 * The `--only otel` bench compares two processes over runs of seconds, and on a small shared
 * machine its ratio swings by a third between runs. Here each process gets many 1-second
 * slices in ABBA order (every setup, then every setup reversed, per cycle), so drift in the
 * machine's speed hits all alike; every gw is pinned to one core and the upstream and the load
 * generator to the other (with `taskset`, when it is on PATH), so they do not compete. A twin
 * of the first setup shows what two identical processes differ by: no difference smaller
 * than that is resolved.
 *
 * `otel`: untraced, its twin, and the extension tapped but unsampled (`sampling_ratio = 0`)
 * and sampled (1.0), each without and with the GenAI metrics; sampled spans go over
 * OTLP/protobuf to the bench upstream. `young-gen`: untraced at gw's semi-space of 8 MB
 * (cli/heap.ts), its twin, and 16, 32 and 64 MB (`--max-semi-space-size`, which gw keeps
 * when given). `trees`: this tree, its twin, the other tree, and this tree with the bench
 * model's `max_output_tokens` below the bench request's 64 (every request's cap lowered).
 *
 * Reported: gw CPU per request (µs, every slice pooled; `main`: its main thread's share, the
 * rest being V8's collector and compiler threads and libuv's), its ratio to the first setup,
 * pooled and per cycle (median, range, then every cycle's), the main thread's µs per request
 * in the young generation's collections (scavenges) and the old generation's (mark-compact,
 * incremental marking included; every gw runs with `--trace-gc`, bench/gc-trace.ts), and
 * each process's peak RSS (VmHWM). Knobs: SLICES_CYCLES (12), SLICES_SECONDS (1), SLICES_CONNECTIONS (50).
 */
import { GcMeter } from './gc-trace.ts';
import { runLoad } from './load.ts';
import { envNumber, toTarget } from './options.ts';
import { readFileSync } from 'node:fs';
import { cpuTimes, parseStatCpu, pin, statusMiB } from './procs.ts';
import { chat, chatPath, type GwSetup, otelToml, plain } from './scenarios.ts';
import { type Gw, startGw, startUpstream } from './setup.ts';
import { percentile } from './stats.ts';

const CYCLES = Math.max(1, Math.round(envNumber('SLICES_CYCLES', 12)));
const SLICE = envNumber('SLICES_SECONDS', 1);
const CONNECTIONS = Math.max(1, Math.round(envNumber('SLICES_CONNECTIONS', 50)));

/** The otel extension at `sampling`, with or without its metrics. */
function otel(sampling: number, metrics: boolean): GwSetup {
  return {
    id: `otel-${sampling}-${metrics ? 'metrics' : 'no-metrics'}`,
    needs: ['plugins/extensions/otel'],
    toml: (up) => otelToml(up, String(sampling), `metrics = ${metrics}`),
  };
}

/** A setup's label, its gw, node flags for its process, and the checkout it runs from (default this one). */
type Setup = [string, GwSetup, string[], string?];

/** The plain setup with every request's output cap lowered (the bench chat asks for 64 tokens). */
const capped: GwSetup = { ...plain, id: 'capped', toml: (up) => `${plain.toml(up)}max_output_tokens = 32\n` };

const SETS: Record<string, Setup[]> = {
  otel: [
    ['untraced', plain, []],
    ['untraced (twin)', plain, []],
    ['unsampled, no metrics', otel(0, false), []],
    ['unsampled, metrics', otel(0, true), []],
    ['sampled, no metrics', otel(1, false), []],
    ['sampled, metrics', otel(1, true), []],
  ],
  'young-gen': [
    ['semi-space 8 MB (gw)', plain, []],
    ['semi-space 8 MB (twin)', plain, []],
    ['semi-space 16 MB', plain, ['--max-semi-space-size=16']],
    ['semi-space 32 MB', plain, ['--max-semi-space-size=32']],
    ['semi-space 64 MB', plain, ['--max-semi-space-size=64']],
  ],
  trees: [
    ['this tree', plain, []],
    ['this tree (twin)', plain, []],
    [`other tree`, plain, [], process.argv[3]],
    ['this tree, caps lowered', capped, []],
  ],
};
const SET = process.argv[2] ?? 'otel';
const SETUPS = SETS[SET];
if (SETUPS === undefined) throw new Error(`bench/slices.ts: unknown set "${SET}"; expected one of ${Object.keys(SETS).join(', ')}`);
if (SET === 'trees' && !process.argv[3]) throw new Error('bench/slices.ts trees: give the other checkout, e.g. bench/slices.ts trees /tmp/gw-old');

/** CPU ms of `pid`'s main thread alone (JavaScript; not the GC's, the compiler's or libuv's helper threads). */
function mainThreadMs(pid: number): number {
  const t = parseStatCpu(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
  return t.userMs + t.sysMs;
}

interface Run {
  label: string;
  gw: Gw;
  cpuMs: number;
  mainMs: number;
  requests: number;
  /** gw's collections (`--trace-gc`): ms in the slices, young and old generation. */
  gc: GcMeter;
  scavengeMs: number;
  markCompactMs: number;
  /** CPU µs per request of each slice, in order. */
  slices: number[];
}

const up = await startUpstream();
const runs: Run[] = [];
try {
  const pinned = pin(process.pid, 0) && pin(up.child.proc.pid!, 0);
  for (const [label, setup, flags, root] of SETUPS) {
    const gw = await startGw(setup, up.url, [...flags, '--trace-gc'], undefined, root);
    runs.push({ label, gw, cpuMs: 0, mainMs: 0, requests: 0, gc: new GcMeter(gw.child.proc.stdout!), scavengeMs: 0, markCompactMs: 0, slices: [] });
    if (pinned) pin(gw.child.proc.pid!, 1);
  }
  process.stderr.write(
    `slices (${SET}): ${runs.length} gw processes${pinned ? ' on core 1, upstream and load on core 0' : ' (taskset missing: not pinned)'}; warming…\n`,
  );
  const target = (g: Gw) => toTarget(g.url, { path: chatPath, body: chat }, true);
  for (const r of runs) await runLoad(target(r.gw), CONNECTIONS, 8);
  for (let c = 0; c < CYCLES; c++) {
    for (const r of [...runs, ...runs.toReversed()]) {
      const pid = r.gw.child.proc.pid!;
      const a = cpuTimes(pid);
      const m = mainThreadMs(pid);
      const scavenge = r.gc.scavengeMs;
      const markCompact = r.gc.markCompactMs;
      const load = await runLoad(target(r.gw), CONNECTIONS, SLICE);
      const b = cpuTimes(pid);
      r.mainMs += mainThreadMs(pid) - m;
      r.scavengeMs += r.gc.scavengeMs - scavenge;
      r.markCompactMs += r.gc.markCompactMs - markCompact;
      const cpu = b.userMs + b.sysMs - a.userMs - a.sysMs;
      r.cpuMs += cpu;
      r.requests += load.requests;
      r.slices.push((cpu / Math.max(1, load.requests)) * 1000);
    }
    process.stderr.write(`slices: cycle ${c + 1}/${CYCLES}\n`);
  }
  const base = runs[0]!;
  const lines = [
    `gw CPU per request, ${CYCLES} ABBA cycles of ${SLICE} s slices at ${CONNECTIONS} connections (JSON chat)`,
    `${'setup'.padEnd(24)}${'µs/req'.padStart(8)}${'ratio'.padStart(8)}${'main µs'.padStart(9)}${'median cycle'.padStart(14)}${'range'.padStart(13)}${'scavenge µs'.padStart(13)}${'mark-compact µs'.padStart(17)}`,
  ];
  const cycles: string[] = ['ratio per cycle (against the first setup in the same cycle)'];
  for (const r of runs) {
    const perCycle: number[] = [];
    for (let c = 0; c < CYCLES; c++) {
      const mine = r.slices[2 * c]! + r.slices[2 * c + 1]!;
      const theirs = base.slices[2 * c]! + base.slices[2 * c + 1]!;
      perCycle.push(mine / theirs);
    }
    cycles.push(`${r.label.padEnd(24)}${perCycle.map((x) => x.toFixed(2)).join(' ')}`);
    const sorted = perCycle.toSorted((x, y) => x - y);
    const usPerReq = (r.cpuMs / r.requests) * 1000;
    lines.push(
      `${r.label.padEnd(24)}${usPerReq.toFixed(0).padStart(8)}${(usPerReq / ((base.cpuMs / base.requests) * 1000)).toFixed(3).padStart(8)}${((r.mainMs / r.requests) * 1000).toFixed(0).padStart(9)}${percentile(sorted, 50).toFixed(3).padStart(14)}${`${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)}`.padStart(13)}${((r.scavengeMs / r.requests) * 1000).toFixed(1).padStart(13)}${((r.markCompactMs / r.requests) * 1000).toFixed(1).padStart(17)}`,
    );
  }
  const rss = ['peak RSS (VmHWM) after the slices'];
  for (const r of runs)
    rss.push(
      `${r.label.padEnd(24)}${statusMiB(readFileSync(`/proc/${r.gw.child.proc.pid}/status`, 'utf8'), 'VmHWM')
        .toFixed(1)
        .padStart(8)} MiB`,
    );
  process.stdout.write(`${lines.join('\n')}\n\n${cycles.join('\n')}\n\n${rss.join('\n')}\n`);
} finally {
  for (const r of runs) await r.gw.stop();
  await up.child.stop();
}
