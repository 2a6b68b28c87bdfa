/**
 * Running the gw binary as a subprocess for CLI tests: exit code, stdout and stderr.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const GW_BIN = fileURLToPath(new URL('../../cli/gw.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `gw <args>` to completion with `env` added to the test's environment.
 * Rejects when it runs longer than `timeoutMs` (default 60 s: a start under load may take 15-25 s).
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, opts: { cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [GW_BIN, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gw ${args.join(' ')} ran over ${opts.timeoutMs ?? 60_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}
