/**
 * Starting the bench's processes: the canned upstream and a gw per setup, each a child
 * process on 127.0.0.1 (gw with `serve --bind 127.0.0.1:0` and LOG_LEVEL=warn).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rssMiB, startChild, type Child } from './procs.ts';
import type { GwSetup } from './scenarios.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BENCH_KEY = 'sk-bench-key-0123456789abcdefghijklmnopq';
const ADMIN = 'sk-bench-admin-0123456789abcdefghijklmnop';
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

/** Starts bench/upstream-server.ts. */
export async function startUpstream(): Promise<Upstream> {
  const child = await startChild('upstream', [join(ROOT, 'bench/upstream-server.ts')], /upstream listening on (\d+)/);
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

/** A running gw. */
export interface Gw {
  setup: GwSetup;
  child: Child;
  url: string;
  /** RSS right after startup, before any request, MiB. */
  idleRssMiB: number;
  stop(): Promise<void>;
}

/** Plugin folders a setup needs that this tree does not have. */
export function missingPlugins(setup: GwSetup): string[] {
  return (setup.needs ?? []).filter((p) => !existsSync(join(ROOT, p)));
}

/** The whole config of a setup. */
export function gwConfig(setup: GwSetup, upstreamUrl: string): string {
  return `# written by npm run bench (setup ${setup.id})
listen = "127.0.0.1:0"
admin_token = "${ADMIN}"
data_dir = "data"

[keys.bench]
key = "${BENCH_KEY}"

${setup.toml(upstreamUrl)}`;
}

/**
 * Starts gw for `setup` in a fresh temp dir (config and store), with extra node flags
 * (e.g. `--cpu-prof`). The dir is removed on stop.
 */
export async function startGw(setup: GwSetup, upstreamUrl: string, nodeFlags: string[] = []): Promise<Gw> {
  const dir = await mkdtemp(join(tmpdir(), `gw-bench-${setup.id}-`));
  const config = join(dir, 'gateway.toml');
  await writeFile(config, gwConfig(setup, upstreamUrl));
  let child: Child;
  try {
    child = await startChild(`gw (${setup.id})`, [...nodeFlags, join(ROOT, 'cli/gw.js'), 'serve', '--config', config, '--bind', '127.0.0.1:0'], /listening on (\S+) \(/, { env: { LOG_LEVEL: GW_LOG_LEVEL } });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    setup,
    child,
    url: `http://${child.ready[1]}`,
    idleRssMiB: rssMiB(child.proc.pid!),
    async stop() {
      await child.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
