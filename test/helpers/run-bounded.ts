/**
 * Runs an agent's CLI to its exit, bounded in time: its output collected, and at `timeoutMs`
 * the CLI killed, with its whole process group when it runs in one of its own (`group`: an
 * agent whose tools run as its children).
 */
import { spawn } from 'node:child_process';

export interface BoundedRun {
  /** Exit code; null when killed. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** True when the run was killed for exceeding `timeoutMs`. */
  timedOut: boolean;
}

/**
 * Spawns `command args` in `cwd` with exactly `env`, stdin closed; with `group`, in a process
 * group of its own.
 * Rejects only when it cannot be started; its own failures are in `code` and `stderr`.
 */
export function runBounded(command: string, args: string[], cwd: string, env: Record<string, string>, timeoutMs: number, group = false): Promise<BoundedRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (group) process.kill(-child.pid!, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}
