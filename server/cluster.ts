/**
 * `gw serve --workers N`: N worker processes (node:cluster), each a whole gateway, sharing one
 * socket; the primary prints one startup line, forwards stop and reload over IPC (one Ctrl-C is
 * one stop), restarts dead workers and sums metrics. docs/operations.md "Worker processes".
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { ConfigError } from '../lib/config/error.ts';
import type { GatewayConfig } from '../lib/config/schema.ts';
import { METRICS_UNAVAILABLE } from './errors.ts';
import { UserError } from '../lib/user-error.ts';
import { UNWIND_MS } from './pending.ts';
import type { GatewayMetrics } from './metrics/metrics.ts';

/** Marks a process forked by gw's primary (cluster.isWorker alone is also true under pm2 and the like). */
const WORKER_ENV = 'GW_CLUSTER_WORKER';

/** Messages between primary and workers (every one carries `gw`). */
type ToPrimary =
  | { gw: 'ready'; line: string }
  | { gw: 'failed'; error: { name: string; message: string; stack?: string; user: boolean } }
  | { gw: 'metrics'; id: number };
type ToWorker = { gw: 'stop' } | { gw: 'reload' } | { gw: 'metrics'; id: number; text?: string; error?: string };

/** True in a worker forked by `runPrimary`. */
export function isGwWorker(): boolean {
  return cluster.isWorker && process.env[WORKER_ENV] === '1';
}

/**
 * Refuses N > 1 workers on a store only one process may open (limits would multiply by N):
 * LevelDB in the primary, a store plugin in each worker once open (`kind`). @throws ConfigError naming `[store]`.
 */
export function requireSharedStore(config: GatewayConfig, workers: number, kind?: { name: string; shared: boolean }): void {
  if (workers <= 1) return;
  if (!config.store?.url) {
    throw new ConfigError(
      config.file,
      ['store'],
      `--workers ${workers} needs a shared store: add [store] url = "redis://host:port/db" (without [store] the store is LevelDB under data_dir, which only one process can open)`,
    );
  }
  if (kind && !kind.shared) {
    throw new ConfigError(
      config.file,
      ['store', 'url'],
      `--workers ${workers} needs a shared store: the store '${kind.name}' belongs to one process; use one that several processes share, e.g. [store] url = "redis://host:port/db"`,
    );
  }
}

export interface PrimaryOptions {
  workers: number;
  log: Logger;
  /** Where the one startup line goes (default stdout). */
  announce?: (line: string) => void;
  /** Bound for workers to drain after a stop request before they are killed, ms. */
  drainMs: number;
}

/** Restart backoff: 0.5 s doubling to 30 s; a worker that lived a minute resets it. */
const BACKOFF_MS = [500, 1_000, 2_000, 5_000, 10_000, 30_000];
const STABLE_MS = 60_000;

/**
 * Runs the primary until every worker exited after a stop; the process's exit code.
 * @throws the first worker's startup failure, as that worker saw it.
 */
export async function runPrimary(o: PrimaryOptions): Promise<number> {
  const { log } = o;
  const aggregator = new AggregatorRegistry();
  /** Live workers and when each was forked. */
  const live = new Map<Worker, number>();
  let phase: 'starting' | 'running' | 'stopping' = 'starting';
  let signals = 0;
  let crashes = 0;
  let worst = 0;
  let up = 0;
  let line = '';
  let startedOk!: (line: string) => void;
  let startFailed!: (err: Error) => void;
  const started = new Promise<string>((resolve, reject) => {
    startedOk = resolve;
    startFailed = reject;
  });
  let allExited!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (allExited = resolve));

  const fork = () => live.set(cluster.fork({ [WORKER_ENV]: '1' }), Date.now());
  const each = (f: (w: Worker) => void) => {
    for (const w of live.keys()) f(w);
  };

  cluster.on('message', (worker: Worker, msg: ToPrimary) => {
    switch (msg?.gw) {
      case 'ready':
        if (phase !== 'starting') log.info({ pid: worker.process.pid }, 'worker restarted');
        else {
          line ||= msg.line;
          if (++up === o.workers) startedOk(line);
        }
        return;
      case 'failed':
        if (phase === 'starting')
          startFailed(
            Object.assign(msg.error.user ? new UserError(msg.error.message) : new Error(msg.error.message), { name: msg.error.name, stack: msg.error.stack }),
          );
        else if (phase === 'running') log.error({ pid: worker.process.pid, err: msg.error.message }, 'worker failed to start');
        return;
      case 'metrics':
        aggregator.clusterMetrics().then(
          (text) => send(worker, { gw: 'metrics', id: msg.id, text }),
          (err: Error) => send(worker, { gw: 'metrics', id: msg.id, error: err.message }),
        );
        return;
    }
  });

  cluster.on('exit', (w: Worker, code: number | null, signal: string | null) => {
    const lived = Date.now() - (live.get(w) ?? Date.now());
    live.delete(w);
    if (code) worst = Math.max(worst, code);
    if (phase === 'running') {
      if (lived >= STABLE_MS) crashes = 0;
      const delay = BACKOFF_MS[Math.min(crashes++, BACKOFF_MS.length - 1)]!;
      log.warn({ pid: w.process.pid, code, signal, restart_in_ms: delay }, 'worker died; restarting it');
      // not unref'd: with every worker gone this timer is what keeps the primary alive
      setTimeout(() => phase === 'running' && fork(), delay);
      return;
    }
    if (phase === 'starting') startFailed(Object.assign(new Error(`a worker exited (${signal ?? code}) before listening`), { name: 'WorkerError' }));
    if (live.size === 0) allExited(phase === 'stopping' ? worst : 1);
  });

  const stopAll = (reason: string) => {
    if (phase === 'stopping') return;
    phase = 'stopping';
    log.info({ reason, workers: live.size }, 'stopping workers');
    each((w) => send(w, { gw: 'stop' }));
    // a worker that does not stop within its bound, the unwind after it (server/pending.ts) and slack is killed
    setTimeout(() => each((w) => w.process.kill('SIGKILL')), o.drainMs + UNWIND_MS + 5_000).unref();
  };
  const onSignal = (sig: NodeJS.Signals) => {
    if (++signals > 1) {
      each((w) => w.process.kill('SIGKILL'));
      process.exit(130);
    }
    stopAll(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', () => each((w) => send(w, { gw: 'reload' })));

  for (let i = 0; i < o.workers; i++) fork();
  try {
    // a stop during startup ends with `exited` before every worker is ready
    const first = await Promise.race([started, exited.then(() => undefined)]);
    if (first === undefined) return exited;
  } catch (err) {
    stopAll('a worker failed to start');
    await exited;
    throw err;
  }
  phase = 'running';
  // the startup line keeps the spec's exact shape in every mode (scripts wait for it); the
  // worker count is said on its own line
  (o.announce ?? ((l) => process.stdout.write(`${l}\n`)))(line);
  log.info({ workers: o.workers, pids: Object.values(cluster.workers ?? {}).map((w) => w?.process.pid) }, `serving with ${o.workers} worker processes`);
  return exited;
}

function send(w: Worker, msg: ToWorker): void {
  if (w.isConnected()) w.send(msg);
}

/** Worker side: the hooks a worker's `serve` needs. */
export interface WorkerLink {
  /** Reports the startup line to the primary (instead of printing it). */
  announce(line: string): void;
  /** Reports a startup failure to the primary, which prints it once for all workers. */
  failed(err: Error): Promise<void>;
  /** Makes `/metrics` on this worker answer for every worker (asks the primary). */
  shareMetrics(metrics: GatewayMetrics): void;
  /** Runs `stop` on the primary's stop request and `reload` on its reload request. */
  onControl(stop: () => void, reload: () => void): void;
}

const SCRAPE_TIMEOUT_MS = 6_000;

/** Connects this worker to the primary. Call before anything slow: the primary may scrape at once. */
export function workerLink(): WorkerLink {
  // answers the primary's metrics requests (prom-client's listener, installed by the
  // constructor); empty until the gateway is up, so a starting worker never stalls a scrape
  AggregatorRegistry.setRegistries([]);
  new AggregatorRegistry();
  const waiting = new Map<number, { resolve: (t: string) => void; reject: (e: Error) => void }>();
  let ids = 0;
  let control: { stop: () => void; reload: () => void } | undefined;
  let stopAsked = false;
  process.on('message', (msg: ToWorker) => {
    if (msg?.gw === 'metrics') {
      const w = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (msg.text !== undefined) w?.resolve(msg.text);
      else w?.reject(METRICS_UNAVAILABLE(`metrics of the other workers are unavailable: ${msg.error}`));
    } else if (msg?.gw === 'stop') {
      stopAsked = true;
      control?.stop();
    } else if (msg?.gw === 'reload') control?.reload();
  });
  const toPrimary = (m: ToPrimary) => new Promise<void>((resolve) => (process.connected ? process.send!(m, undefined, undefined, () => resolve()) : resolve()));
  return {
    announce: (line) => void toPrimary({ gw: 'ready', line }),
    failed: (err) => toPrimary({ gw: 'failed', error: { name: err.name, message: err.message, stack: err.stack, user: err instanceof UserError } }),
    shareMetrics(metrics) {
      AggregatorRegistry.setRegistries([metrics.registry]);
      metrics.scrape = () =>
        new Promise<string>((resolve, reject) => {
          const id = ids++;
          const t = setTimeout(() => {
            waiting.delete(id);
            reject(METRICS_UNAVAILABLE(`the primary did not answer the metrics request within ${SCRAPE_TIMEOUT_MS / 1000} s`));
          }, SCRAPE_TIMEOUT_MS);
          waiting.set(id, {
            resolve: (text) => {
              clearTimeout(t);
              resolve(text);
            },
            reject: (e) => {
              clearTimeout(t);
              reject(e);
            },
          });
          void toPrimary({ gw: 'metrics', id });
        });
    },
    onControl(stop, reload) {
      control = { stop, reload };
      if (stopAsked) stop();
    },
  };
}
