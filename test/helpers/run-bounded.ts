/**
 * Runs an agent's CLI to its exit, bounded in time: its output collected, and at `timeoutMs`
 * its whole process group killed (an agent's tools run as its children).
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
 * Spawns `command args` in `cwd` with exactly `env`, stdin closed.
 * Rejects only when it cannot be started; its own failures are in `code` and `stderr`.
 */
export function runBounded(command: string, args: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<BoundedRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
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
