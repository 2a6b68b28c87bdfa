/**
 * `gw serve`: start the gateway and stop it gracefully on SIGINT/SIGTERM
 * (a second signal exits at once); SIGHUP reloads the config file.
 * `--workers N` (N > 1): this process becomes the cluster primary (server/cluster.ts) and
 * each worker it forks runs this same command as one gateway on the shared socket.
 */
import { existsSync } from 'node:fs';
import type { WorkerLink } from '../server/cluster.ts';
import type { Logger } from 'pino';
import type { Running } from '../server/server.ts';
import { servingHeap, tuneHeap } from './heap.ts';

export interface ServeCliOptions {
  config: string;
  bind?: string;
  verbosity: number;
  /** Worker processes (default 1: no cluster). */
  workers?: number;
  /** `--record <path>`: the recorder extension on, writing there. */
  record?: string;
}

export async function runServe(o: ServeCliOptions): Promise<void> {
  tuneHeap();
  // imported after the re-exec: what loads before it is loaded twice (~0.3 s of CPU per start)
  const [{ isGwWorker, requireSharedStore, runPrimary, workerLink }, { writeFirstRunConfig }, { loadConfig }, { createLogger, levelFrom }] = await Promise.all([
    import('../server/cluster.ts'),
    import('../server/config/first-run.ts'),
    import('../server/config/load.ts'),
    import('../server/log.ts'),
  ]);
  const log = createLogger(levelFrom(o.verbosity));
  if (isGwWorker()) return serveProcess(o, log, workerLink());
  const workers = o.workers ?? 1;
  if (workers <= 1) return serveProcess(o, log);
  // the primary: refuse LevelDB before forking anything (a first run creates the file to edit)
  if (!existsSync(o.config) && (await writeFirstRunConfig(o.config, o.bind ?? '127.0.0.1:8080')))
    log.warn({ config: o.config }, 'no config file: created one with a fresh admin_token and [keys.default]');
  const config = await loadConfig(o.config);
  requireSharedStore(config, workers);
  process.exit(await runPrimary({ workers, log, drainMs: config.shutdown_timeout_seconds * 1000 }));
}

/** One gateway in this process: alone, or as a cluster worker (`link`) controlled by the primary. */
async function serveProcess(o: ServeCliOptions, log: Logger, link?: WorkerLink): Promise<void> {
  // imported here: a --workers primary never loads the gateway (its memory stays small)
  const { serve } = await import('../server/server.ts');
  let running: Running | undefined;
  let signals = 0;
  let stopping = false;
  const shutdown = () => {
    if (!running || stopping) return;
    stopping = true;
    running.stop().then(
      () => {
        log.flush?.();
        process.exit(0);
      },
      (err: Error) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const onSignal = (sig: NodeJS.Signals) => {
    if (++signals > 1) process.exit(130);
    log.info({ signal: sig }, 'shutting down');
    shutdown();
  };
  // SIGHUP re-reads the config file (as `gw reload` does); a bad file is logged and the running config kept
  const reload = () => {
    running?.gateway.runtime.reload().catch((err: Error) => log.error({ err: err.message }, 'reload refused; the running config is kept'));
  };
  // handlers go in before serving: a signal sent right after the startup line must not find
  // the default action (instant kill) still in place
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', reload);
  if (!link) {
    running = await serve({ config: o.config, bind: o.bind, log, record: o.record });
    servingHeap();
    if (signals > 0) shutdown();
    return;
  }
  // a worker: the primary prints the one startup line, and a failure once for all workers
  let line = '';
  try {
    running = await serve({ config: o.config, bind: o.bind, log, announce: (l) => (line = l), workers: o.workers, record: o.record });
  } catch (err) {
    await link.failed(err as Error);
    process.exit(1);
  }
  servingHeap();
  link.shareMetrics(running.gateway.metrics);
  link.onControl(shutdown, reload);
  link.announce(line);
  if (signals > 0) shutdown();
}
