/**
 * `gw serve`: start the gateway and stop it gracefully on SIGINT/SIGTERM
 * (a second signal exits at once); SIGHUP reloads the config file.
 */
import { closeUpstreams } from '../core/http/upstream.ts';
import { createLogger, levelFrom } from '../core/log.ts';
import { serve, type Running } from '../core/server.ts';

export async function runServe(o: { config: string; bind?: string; verbosity: number }): Promise<void> {
  const log = createLogger(levelFrom(o.verbosity));
  let running: Running | undefined;
  let signals = 0;
  const shutdown = (r: Running) => {
    r.stop().then(
      async () => {
        await closeUpstreams().catch(() => undefined);
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
    if (running) shutdown(running);
  };
  // handlers go in before serving: a signal sent right after the startup line must not find
  // the default action (instant kill) still in place
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // SIGHUP re-reads the config file (as `gw reload` does); a bad file is logged and the running config kept
  process.on('SIGHUP', () => {
    running?.gateway.runtime.reload().catch((err: Error) => log.error({ err: err.message }, 'reload refused; the running config is kept'));
  });
  running = await serve({ config: o.config, bind: o.bind, log });
  if (signals > 0) shutdown(running);
}
