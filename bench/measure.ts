/**
 * One measured phase: warm up, then load `target` for a fixed time while reading the CPU
 * time of gw, the upstream and the load generator around it; for streams, time first byte
 * and end of stream afterwards.
 */
import { runLoad, type LoadResult, type Target } from './load.ts';
import { cpuTimes, treeCpuTimes, treeRssMiB, type CpuTimes } from './procs.ts';
import { timeStreams, type StreamTiming } from './streams.ts';

export interface PhaseOptions {
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** Streams to time after the load (0 = none) and how many at once. */
  streams: number;
  streamConcurrency: number;
  /** gw's pid (absent for a direct run; with `--workers`, the primary: its workers count too) and the upstream's. */
  gwPid?: number;
  upstreamPid: number;
  /** The store server's pid (redis-server) when gw uses one. */
  storePid?: number;
  /** Upstream calls counted so far (GET /__stats, summed). */
  upstreamCalls: () => Promise<number>;
}

/** What one phase measured. CPU in ms per completed request. */
export interface PhaseResult {
  load: LoadResult;
  gwCpuMsPerReq?: number;
  /** The same split into user (JS, V8) and system (syscalls: sockets, epoll) time. */
  gwUserMsPerReq?: number;
  gwSysMsPerReq?: number;
  upstreamCpuMsPerReq: number;
  loadgenCpuMsPerReq: number;
  /** Upstream calls per completed request (1 for a round trip, ~0 for cache hits). */
  upstreamCallsPerReq: number;
  gwRssMiB?: number;
  /** CPU of the store server (redis-server) per request, ms. */
  storeCpuMsPerReq?: number;
  streams?: StreamTiming;
}

/** Runs one phase against `target`. */
export async function measurePhase(target: Target, o: PhaseOptions): Promise<PhaseResult> {
  if (o.warmupSeconds > 0) await runLoad(target, o.connections, o.warmupSeconds);
  const calls0 = await o.upstreamCalls();
  const none: CpuTimes = { userMs: 0, sysMs: 0 };
  const gw0 = o.gwPid ? treeCpuTimes(o.gwPid) : none;
  const st0 = o.storePid ? cpuTimes(o.storePid) : none;
  const up0 = cpuTimes(o.upstreamPid);
  const lg0 = process.cpuUsage();
  const load = await runLoad(target, o.connections, o.seconds);
  const gw1 = o.gwPid ? treeCpuTimes(o.gwPid) : none;
  const st1 = o.storePid ? cpuTimes(o.storePid) : none;
  const up1 = cpuTimes(o.upstreamPid);
  const lg = process.cpuUsage(lg0);
  const calls1 = await o.upstreamCalls();
  const n = Math.max(1, load.requests);
  const r: PhaseResult = {
    load,
    upstreamCpuMsPerReq: (up1.userMs + up1.sysMs - up0.userMs - up0.sysMs) / n,
    loadgenCpuMsPerReq: (lg.user + lg.system) / 1000 / n,
    upstreamCallsPerReq: (calls1 - calls0) / n,
  };
  if (o.gwPid) {
    r.gwUserMsPerReq = (gw1.userMs - gw0.userMs) / n;
    r.gwSysMsPerReq = (gw1.sysMs - gw0.sysMs) / n;
    r.gwCpuMsPerReq = r.gwUserMsPerReq + r.gwSysMsPerReq;
    r.gwRssMiB = treeRssMiB(o.gwPid);
  }
  if (o.storePid) r.storeCpuMsPerReq = (st1.userMs + st1.sysMs - st0.userMs - st0.sysMs) / n;
  if (o.streams > 0) r.streams = await timeStreams(target, o.streams, o.streamConcurrency);
  return r;
}
