/**
 * `gw serve`: start the gateway and stop it gracefully on SIGINT/SIGTERM
 * (a second signal exits at once).
 */
import { closeUpstreams } from '../core/http/upstream.ts';
import { createLogger, levelFrom } from '../core/log.ts';
import { serve } from '../core/server.ts';

export async function runServe(o: { config: string; bind?: string; verbosity: number }): Promise<void> {
  const log = createLogger(levelFrom(o.verbosity));
  const running = await serve({ config: o.config, bind: o.bind, log });
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    if (++signals > 1) process.exit(130);
    log.info({ signal: sig }, 'shutting down');
    running.stop().then(
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
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
