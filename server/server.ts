/** Serving: first run, config, gateway, listener, startup line, graceful shutdown (in-flight work drains, then the store closes). */
import { counted } from '../lib/plural.ts';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { GatewayConfig } from '../lib/config/schema.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from '../core/app.ts';
import { requireSharedStore } from './cluster.ts';
import { writeFirstRunConfig } from './config/first-run.ts';
import { loadConfig } from './config/load.ts';
import { UserError } from '../lib/user-error.ts';
import { createGateway, type Gateway } from './gateway.ts';
import { PendingRequests, UNWIND_MS } from './pending.ts';
import { bundledPrices } from './pricing/bundled.ts';

/** The listen backlog (capped by net.core.somaxconn): Node's 511 overflows when agents open thousands of streams at once. */
export const LISTEN_BACKLOG = 4096;

export interface ServeOptions {
  /** Config file path; created on first run when missing. */
  config: string;
  /** `host:port` overriding the file's `listen`. */
  bind?: string;
  log: Logger;
  /** Where the startup line goes (default stdout). */
  announce?: (line: string) => void;
  /** The gateway's clock, epoch ms (tests inject one to cross a budget period or an expiry without sleeping). */
  clock?: () => number;
  /** This process is one of `workers` cluster workers: a store they cannot share is refused before listening. */
  workers?: number;
  /** `gw serve --record <path>`: the recorder extension on, writing there (relative to the working directory). */
  record?: string;
}

/** A running gateway server. */
export interface Running {
  gateway: Gateway;
  server: Server;
  /** `host:port` actually bound. */
  address: string;
  /** Graceful stop: no new connections, in-flight work finishes within `shutdown_timeout_seconds`, store closed. */
  stop(): Promise<void>;
}

/**
 * Starts gw.
 * @throws ConfigError for a bad config, Error when the address cannot be bound or the store opened.
 */
export async function serve(opts: ServeOptions): Promise<Running> {
  const { log } = opts;
  if (!existsSync(opts.config)) {
    const created = await writeFirstRunConfig(opts.config, opts.bind ?? '127.0.0.1:8080');
    if (created) log.warn({ config: opts.config }, 'no config file: created one with a fresh admin_token and [keys.default]');
  }
  const loaded = await loadConfig(opts.config);
  const config = opts.record === undefined ? loaded : withRecorder(loaded, resolve(opts.record));
  const gateway = await createGateway(config, log, { clock: opts.clock, priceTable: bundledPrices() });
  try {
    requireSharedStore(config, opts.workers ?? 1, gateway.storeKind);
  } catch (err) {
    await gateway.close();
    throw err;
  }
  if (gateway.snapshot.keys.open) log.warn('no [keys] configured: the gateway runs open, without authentication');
  const app = createApp(gateway);
  // requestTimeout bounds receiving a request (not answering it: streams may run for
  // minutes); Node checks it every connectionsCheckingInterval
  const requestMs = config.request_timeout_seconds * 1000;
  const handle = app.callback();
  const pending = new PendingRequests();
  const server = createServer(
    {
      keepAliveTimeout: 65_000,
      requestTimeout: requestMs,
      headersTimeout: Math.min(60_000, requestMs),
      connectionsCheckingInterval: Math.min(5_000, Math.max(250, requestMs / 4)),
    },
    // Koa's callback answers with the promise of its handling: hooks, charges and all
    (req, res) => pending.track(res, handle(req, res)),
  );
  const [host, port] = splitHostPort(opts.bind ?? config.listen);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await gateway.close();
    throw new UserError(`cannot listen on ${host}:${port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  const a = server.address() as AddressInfo;
  const address = `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
  const table = gateway.snapshot.table;
  (opts.announce ?? ((l) => process.stdout.write(`${l}\n`)))(
    `listening on ${address} (${counted(table.models().length, 'model')}, ${counted(table.providers.size, 'provider')}, ${counted(gateway.extensions.length, 'extension')})`,
  );

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      server.close();
      server.closeIdleConnections();
      if (pending.size > 0) {
        log.info({ inflight: pending.size }, 'waiting for in-flight requests');
        if (!(await pending.idle(config.shutdown_timeout_seconds * 1000)))
          log.warn({ inflight: pending.size }, 'shutdown bound reached: closing remaining connections');
      }
      server.closeAllConnections();
      // handlers whose connections were just closed unwind (their clients are gone) and
      // charge what they streamed: the store stays open for that, within a bound
      if (pending.size > 0 && !(await pending.idle(UNWIND_MS))) log.warn({ inflight: pending.size }, 'closing the store with requests still unwinding');
      await gateway.close();
    })();
    return stopping;
  };
  return { gateway, server, address, stop };
}

/** `host:port` → [host, port]; brackets stripped from IPv6 hosts. */
export function splitHostPort(s: string): [string, number] {
  const i = s.lastIndexOf(':');
  const host = s.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  const port = Number(s.slice(i + 1));
  if (i <= 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid address '${s}': expected <host>:<port>`);
  return [host, port];
}

/** `config` with the recorder extension writing to `path` (its other settings, if the file has the section, kept). */
function withRecorder(config: GatewayConfig, path: string): GatewayConfig {
  const section = (config.extensions.recorder ?? {}) as Record<string, unknown>;
  return { ...config, extensions: { ...config.extensions, recorder: { ...section, path } } };
}
