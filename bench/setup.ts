/**
 * Starting the bench's processes: the canned upstream, a redis-server when a setup uses the
 * Redis store, and a gw per setup, each a child process on 127.0.0.1 (gw with
 * `serve --bind 127.0.0.1:0` and LOG_LEVEL=warn).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, treeRssMiB, type Child } from './procs.ts';
import type { GwSetup } from './scenarios.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BENCH_KEY = 'sk-bench-key-0123456789abcdefghijklmnopq';
/** The admin token of every bench gw (GET /metrics needs it). */
export const ADMIN = 'sk-bench-admin-0123456789abcdefghijklmnop';
/** gw's log filter during the bench (request logging would measure pino, not gw). */
export const GW_LOG_LEVEL = 'warn';

/** The running upstream. */
export interface Upstream {
  child: Child;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Upstream calls counted so far, all routes. */
  calls(): Promise<number>;
}

/** Starts bench/upstream-server.ts; `env` e.g. `BENCH_CHUNK_GAP_MS` and `BENCH_STREAM_CHUNKS` for a slow upstream. */
export async function startUpstream(env: NodeJS.ProcessEnv = {}, name = 'upstream'): Promise<Upstream> {
  const child = await startChild(name, [join(ROOT, 'bench/upstream-server.ts')], /upstream listening on (\d+)/, { env });
  const url = `http://127.0.0.1:${child.ready[1]}`;
  return {
    child,
    url,
    async calls() {
      const r = await fetch(`${url}/__stats`);
      const counts = (await r.json()) as Record<string, number>;
      return Object.values(counts).reduce((a, b) => a + b, 0);
    },
  };
}

/** Starts the bare-proxy floor (bench/floor-proxy.ts) in front of `upstreamUrl`; resolves to it and its URL. */
export async function startFloor(upstreamUrl: string): Promise<{ child: Child; url: string }> {
  const child = await startChild('floor proxy', [join(ROOT, 'bench/floor-proxy.ts'), upstreamUrl], /floor listening on (\d+)/);
  return { child, url: `http://127.0.0.1:${child.ready[1]}` };
}

/** The running redis-server. */
export interface Redis {
  child: Child;
  /** `redis://127.0.0.1:<port>` (no db: each setup picks its own). */
  url: string;
}

/** Whether `redis-server` is on PATH (Debian package `redis-server`). */
export function haveRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Starts redis-server on a free port, in memory only (no RDB, no AOF); stopped with the other children. */
export async function startRedis(): Promise<Redis> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  const child = await startChild(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir(), '--loglevel', 'notice'],
    /Ready to accept connections/,
    { command: 'redis-server' },
  );
  return { child, url: `redis://127.0.0.1:${port}` };
}

/** A running gw. */
export interface Gw {
  setup: GwSetup;
  child: Child;
  url: string;
  /** Its temp dir: gateway.toml, and the LevelDB store in `data/`. */
  dir: string;
  /** RSS right after startup, before any request, MiB. */
  idleRssMiB: number;
  stop(): Promise<void>;
}

/** Plugin folders a setup needs that this tree does not have. */
export function missingPlugins(setup: GwSetup): string[] {
  return (setup.needs ?? []).filter((p) => !existsSync(join(ROOT, p)));
}

/** Redis databases handed out to setups, so two setups never share limits, budgets or cache. */
let nextDb = 1;

/** The whole config of a setup; `redisUrl` when the setup uses the Redis store. */
export function gwConfig(setup: GwSetup, upstreamUrl: string, redisUrl?: string): string {
  const store = setup.store === 'redis' ? `\n[store]\nurl = "${redisUrl}/${nextDb++ % 16}"\n` : '';
  return `# written by npm run bench (setup ${setup.id})
listen = "127.0.0.1:0"
admin_token = "${ADMIN}"
data_dir = "data"

[keys.bench]
key = "${BENCH_KEY}"
${setup.keySettings ?? ''}

${setup.toml(upstreamUrl)}${store}`;
}

/**
 * Starts gw for `setup` in a fresh temp dir (config and store), with extra node flags
 * (e.g. `--cpu-prof`); `--workers N` when the setup says so. The dir is removed on stop.
 * `root`: the checkout whose `cli/gw.js` runs (default this one; another tree, built, to
 * compare two versions of gw).
 */
export async function startGw(setup: GwSetup, upstreamUrl: string, nodeFlags: string[] = [], redisUrl?: string, root = ROOT): Promise<Gw> {
  const dir = await mkdtemp(join(tmpdir(), `gw-bench-${setup.id}-`));
  const config = join(dir, 'gateway.toml');
  await writeFile(config, gwConfig(setup, upstreamUrl, redisUrl));
  const workers = setup.workers ? ['--workers', String(setup.workers)] : [];
  let child: Child;
  try {
    child = await startChild(
      `gw (${setup.id})`,
      [...nodeFlags, join(root, 'cli/gw.js'), 'serve', '--config', config, '--bind', '127.0.0.1:0', ...workers],
      /listening on (\S+) \(/,
      { env: { LOG_LEVEL: GW_LOG_LEVEL } },
    );
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    setup,
    child,
    url: `http://${child.ready[1]}`,
    dir,
    idleRssMiB: treeRssMiB(child.proc.pid!),
    async stop() {
      await child.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
