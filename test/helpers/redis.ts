/**
 * A real `redis-server` for tests: started on a free port on 127.0.0.1 with no persistence,
 * in a temp dir, stopped at teardown. Fault tests stop, freeze (SIGSTOP) and restart it on
 * the same port.
 *
 * Without `redis-server` on PATH: in CI (`CI` set) the test fails with a message saying how
 * to install it (.ci/run does); elsewhere the test is skipped with a logged message.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';

export interface TestRedis {
  /** `redis://127.0.0.1:<port>/0` */
  url: string;
  port: number;
  /** Stops the server (SIGKILL: a crash, nothing flushed) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence) and waits for PING. */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Thaws a paused server (SIGCONT). */
  resume(): void;
  /** Kills the server and removes its directory. */
  stop(): Promise<void>;
}

let found: boolean | undefined;

/** Whether `redis-server` is on PATH. */
export function haveRedisServer(): boolean {
  if (found === undefined) {
    try {
      execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
      found = true;
    } catch {
      found = false;
    }
  }
  return found;
}

const MISSING = 'redis-server is not on PATH: install it (Debian/Ubuntu: apt-get install -y redis-server; .ci/run does this in CI)';

/**
 * A fresh redis-server stopped at the test's teardown; undefined when the test should skip
 * (no redis-server outside CI: logged and passed). In CI a missing redis-server throws.
 */
export async function redisFor(t: ExecutionContext): Promise<TestRedis | undefined> {
  if (!haveRedisServer()) {
    if (process.env.CI) throw new Error(MISSING);
    t.log(`skipped: ${MISSING}`);
    t.pass();
    return undefined;
  }
  const r = await startRedis();
  t.teardown(() => r.stop());
  return r;
}

/** A free TCP port on 127.0.0.1 (redis-server cannot take port 0). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** Resolves once the server answers PING with PONG; rejects after `timeoutMs`. */
async function waitPing(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = createConnection({ host: '127.0.0.1', port });
      let buf = '';
      s.setTimeout(500, () => {
        s.destroy();
        resolve(false);
      });
      s.on('connect', () => s.write('PING\r\n'));
      s.on('data', (d) => {
        buf += d;
        if (buf.includes('\r\n')) {
          s.destroy();
          resolve(buf.startsWith('+PONG'));
        }
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts redis-server (must be on PATH); the caller stops it. */
export async function startRedis(): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const launch = async () => {
    const c = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = c;
    c.stdout!.on('data', (d) => (output += d));
    c.stderr!.on('data', (d) => (output += d));
    exited = new Promise<void>((r) => c.once('exit', () => r()));
    try {
      await Promise.race([
        waitPing(port),
        exited.then(() => {
          throw new Error(`redis-server exited at start:\n${output}`);
        }),
      ]);
    } catch (err) {
      c.kill('SIGKILL');
      throw err;
    }
  };

  // a port picked free may be taken before redis binds it: try a few
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (err) {
      if (attempt >= 3) {
        await rm(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }

  const kill = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    kill,
    restart: launch,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
