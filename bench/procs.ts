/**
 * Child processes of the bench (the upstream and each gw) and what Linux tells about them:
 * CPU time from /proc/<pid>/stat, resident memory from /proc/<pid>/status.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A started child and the first match of its readiness pattern on stdout. */
export interface Child {
  name: string;
  proc: ChildProcess;
  /** Capture groups of the readiness line. */
  ready: RegExpExecArray;
  stderr: () => string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<Child>();

/**
 * Spawns `node <args>` (or `opts.command <args>`) and waits until stdout matches `readyLine`.
 * @throws when the child exits or stays silent past `timeoutMs` (its stderr included).
 */
export async function startChild(
  name: string,
  args: string[],
  readyLine: RegExp,
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; command?: string } = {},
): Promise<Child> {
  const proc = spawn(opts.command ?? process.execPath, args, { env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const onOut = (d: Buffer) => {
    out += d;
  };
  proc.stdout!.on('data', onOut);
  proc.stderr!.on('data', (d: Buffer) => {
    err = (err + d).slice(-8192);
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  let stopping: Promise<void> | undefined;
  const child: Child = {
    name,
    proc,
    ready: undefined as unknown as RegExpExecArray,
    stderr: () => err,
    stop(graceMs = 5000) {
      stopping ??= (async () => {
        live.delete(child);
        if (proc.exitCode !== null || proc.signalCode !== null) return;
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(t);
      })();
      return stopping;
    },
  };
  live.add(child);
  try {
    child.ready = await new Promise<RegExpExecArray>((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error(`${name} printed no ready line within ${opts.timeoutMs ?? 15_000} ms\nstdout: ${out}\nstderr: ${err}`)),
        opts.timeoutMs ?? 15_000,
      );
      const check = () => {
        const m = readyLine.exec(out);
        if (!m) return;
        clearTimeout(t);
        proc.stdout!.off('data', check);
        resolve(m);
      };
      proc.stdout!.on('data', check);
      void exited.then(() => {
        clearTimeout(t);
        reject(new Error(`${name} exited (${proc.exitCode ?? proc.signalCode}) before it was ready\nstdout: ${out}\nstderr: ${err}`));
      });
    });
  } catch (e) {
    await child.stop(1000);
    throw e;
  }
  // keep draining stdout (a full pipe would block the child) without keeping it
  proc.stdout!.off('data', onOut);
  proc.stdout!.resume();
  return child;
}

/** Stops every child still running (end of run, error, SIGINT). */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((c) => c.stop()));
}

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`, 100 on Linux x86 and arm64). */
export const CLK_TCK = clockTicks();

function clockTicks(): number {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/** CPU time a process has used so far, ms (1000 / CLK_TCK resolution, 10 ms at 100). */
export interface CpuTimes {
  userMs: number;
  sysMs: number;
}

/** utime and stime of a process (/proc/<pid>/stat). */
export function cpuTimes(pid: number): CpuTimes {
  return parseStatCpu(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * Parses utime and stime (fields 14 and 15) out of a /proc/<pid>/stat line, counted after
 * the parenthesised command name, which may itself hold spaces.
 */
export function parseStatCpu(stat: string): CpuTimes {
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state)
  return { userMs: (Number(rest[11]) * 1000) / CLK_TCK, sysMs: (Number(rest[12]) * 1000) / CLK_TCK };
}

/**
 * A process and its children (a `--workers` primary and its workers), from
 * /proc/<pid>/task/<tid>/children; just `[pid]` where the kernel does not list children.
 */
export function processTree(pid: number): number[] {
  const out = [pid];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) if (c.trim()) out.push(...processTree(Number(c)));
    }
  } catch {
    // gone meanwhile, or no children file: the process alone
  }
  return out;
}

/** CPU time of a process and its children (see `processTree`). */
export function treeCpuTimes(pid: number): CpuTimes {
  const sum: CpuTimes = { userMs: 0, sysMs: 0 };
  for (const p of processTree(pid)) {
    try {
      const c = cpuTimes(p);
      sum.userMs += c.userMs;
      sum.sysMs += c.sysMs;
    } catch {
      // exited between listing and reading
    }
  }
  return sum;
}

/** RSS of a process and its children, MiB. */
export function treeRssMiB(pid: number): number {
  let sum = 0;
  for (const p of processTree(pid)) {
    try {
      sum += rssMiB(p);
    } catch {
      // exited between listing and reading
    }
  }
  return sum;
}

/** Resident set size of a process in MiB (VmRSS of /proc/<pid>/status). */
export function rssMiB(pid: number): number {
  return parseVmRssMiB(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

/**
 * A process's resident memory split as /proc/<pid>/status has it, MiB: anonymous (heaps,
 * stacks: what the process allocated) and file-backed (the node binary, libraries and
 * mmapped files such as LevelDB's tables: clean pages the kernel may drop under pressure).
 * NaN fields when the process is gone.
 */
export function rssSplitMiB(pid: number): { anon: number; file: number } {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // exited
  }
  return { anon: statusMiB(status, 'RssAnon'), file: statusMiB(status, 'RssFile') };
}

/** Bytes of the files under `dir` (recursively), MiB; 0 when it does not exist. */
export function dirMiB(dir: string): number {
  let bytes = 0;
  try {
    for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!e.isFile()) continue;
      try {
        bytes += statSync(join(e.parentPath, e.name)).size;
      } catch {
        // compacted away between listing and stat
      }
    }
  } catch {
    // no dir yet
  }
  return bytes / 1048576;
}

/** Parses the VmRSS line (kB) of /proc/<pid>/status, in MiB. */
export function parseVmRssMiB(status: string): number {
  return statusMiB(status, 'VmRSS');
}

const STATUS_FIELDS = {
  VmRSS: /^VmRSS:\s+(\d+)\s+kB/m,
  /** The peak resident set. */
  VmHWM: /^VmHWM:\s+(\d+)\s+kB/m,
  RssAnon: /^RssAnon:\s+(\d+)\s+kB/m,
  RssFile: /^RssFile:\s+(\d+)\s+kB/m,
};

/** A `<field>: <n> kB` line of /proc/<pid>/status, in MiB; NaN when absent. */
export function statusMiB(status: string, field: keyof typeof STATUS_FIELDS): number {
  const m = STATUS_FIELDS[field].exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Pins `pid` and its threads to `cpu` (`taskset`); false when taskset is missing. */
export function pin(pid: number, cpu: number): boolean {
  try {
    execFileSync('taskset', ['-a', '-pc', String(cpu), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
