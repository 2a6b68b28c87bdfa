/**
 * Starting gw for a test: in-process on 127.0.0.1:0 with a config written to a fresh temp
 * directory (the store lives there too), or as a subprocess for crash/signal tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExecutionContext } from 'ava';
import { parseConfig } from '../../server/config/load.ts';
import { createGateway } from '../../server/gateway.ts';
import { createLogger } from '../../server/log.ts';
import { serve, type Running } from '../../server/server.ts';

export const ADMIN_TOKEN = 'sk-admin-test-token-0123456789abcdef';
export const KEY = 'sk-test-key-default-0123456789abcdef';
export const KEY2 = 'sk-test-key-second-0123456789abcdef';

/** Config head with listen, admin token and two keys (`default`, `second`). */
export function baseConfig(extra = ''): string {
  return `listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"
data_dir = "data"

[keys.default]
key = "${KEY}"

[keys.second]
key = "${KEY2}"

${extra}`;
}

export interface TestGateway {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `${url}/v1`, for the openai client's baseURL. */
  baseURL: string;
  dir: string;
  configPath: string;
  running: Running;
  /** Log lines written (JSON strings). */
  logs: string[];
  /** Graceful stop; the temp dir is removed unless `keepDir`. */
  stop(opts?: { keepDir?: boolean }): Promise<void>;
}

/**
 * Starts gw in-process with `toml` as its config (written to a temp dir, or `dir` if given).
 * Logs are captured at `level` (default warn) into `logs`. `clock` replaces the gateway's
 * clock (key expiry, budget periods).
 */
export async function startGateway(
  toml: string,
  opts: { dir?: string; level?: 'warn' | 'info' | 'debug' | 'trace'; env?: NodeJS.ProcessEnv; clock?: () => number } = {},
): Promise<TestGateway> {
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'gw-test-')));
  const configPath = join(dir, 'gateway.toml');
  await writeFile(configPath, toml);
  const logs: string[] = [];
  const sink = {
    write: (s: string) => {
      logs.push(s);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const log = createLogger(opts.level ?? 'warn', sink);
  const running = await serve({ config: configPath, log, announce: () => undefined, clock: opts.clock });
  const url = `http://${running.address}`;
  return {
    url,
    baseURL: `${url}/v1`,
    dir,
    configPath,
    running,
    logs,
    async stop(o = {}) {
      await running.stop();
      if (!o.keepDir && !opts.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** What building a gateway from `toml` threw (a config written to a fresh temp dir); fails the test when nothing. */
export async function gatewayError(t: ExecutionContext, toml: string): Promise<Error> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-build-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.toml');
  try {
    const gw = await createGateway(parseConfig(toml, file, file, {}), createLogger('silent'));
    await gw.close();
  } catch (err) {
    return err as Error;
  }
  t.fail('expected an error');
  throw new Error('unreachable');
}

const GW_BIN = fileURLToPath(new URL('../../cli/gw.js', import.meta.url));

/** Runs `gw <args>` as a subprocess to its exit (killed after 60 s, as a start under load may take 15-25 s); its exit code and output. */
export function runToExit(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [GW_BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
}

/**
 * Runs `gw <args>` as a subprocess (`node [nodeArgs] cli/gw.js <args>`) and waits for its
 * startup line.
 * @throws when it exits or prints no startup line within `timeoutMs` (default 60 s).
 */
export async function spawnGateway(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; nodeArgs?: string[] } = {},
): Promise<GatewayProcess> {
  // a start takes about a second alone; a file's tests start several at once beside other
  // files' processes, and ten starts at once on 2 cores were seen to take 15-25 s
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), GW_BIN, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, LOG_LEVEL: 'warn', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (err += d));
  const exited = new Promise<number | string>((r) => child.once('exit', (code, sig) => r(code ?? sig ?? -1)));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => {
      // the caller never gets the child: do not leave it running
      child.kill('SIGKILL');
      reject(new Error(`gw did not start within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`));
    }, timeoutMs);
    const check = () => {
      const m = /listening on (\S+) \(/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(`http://${m[1]}`);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(t);
      reject(new Error(`gw exited (${code}) before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });
  return { child, url, stdout: () => out, stderr: () => err, exited };
}
