/**
 * The running upstream servers: those of `[mcp_servers.*]` in the running config and the runtime
 * ones (records.ts), with the same rules as providers (docs/design.md "Runtime changes"): a
 * name the config file defines shadows a runtime one; creating a name that exists is 409;
 * deleting one the file defines is 409. A server whose section is unchanged keeps its
 * connection across a reload or a change of another server.
 *
 * Changes reach every instance: a runtime change bumps `mcp:version`, which instances on a
 * shared store read every POLL_MS (a change is seen within about a second, two at most), and
 * a config reload is seen by the same tick (the snapshot's config changed). Each state or
 * list change of a server rebuilds the catalog, and listeners (the clients' streams) hear of it.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../lib/config/schema.ts';
import { type McpServerConfig, type McpSettings, mcpServerSchema } from '../lib/config/mcp-schema.ts';
import { Catalog } from './catalog.ts';
import { validate } from '../lib/schemas.ts';
import { SERVER_EXISTS, SERVER_IN_FILE, SERVER_NOT_FOUND } from './errors.ts';
import type { McpHost } from './host.ts';
import { type ServerRecord, ServerRecords } from './records.ts';
import { UpstreamServer } from './upstream/connection.ts';
import { upstreamFetch } from './upstream/fetch.ts';

/** How often instances check for changes (runtime servers on a shared store, a reloaded config). */
export const POLL_MS = 1000;
/** Re-read the records this often even when the version did not move (a lost bump). */
const RESYNC_MS = 30_000;

/** What a change of the catalog means for a client: which lists to list again. */
export interface CatalogChange {
  tools: boolean;
  prompts: boolean;
  resources: boolean;
}

interface Running {
  server: UpstreamServer;
  source: 'file' | 'runtime';
  /** The section as given, JSON: unchanged sections keep their server. */
  json: string;
  createdAt?: string;
}

export class McpServers {
  private readonly host: McpHost;
  private readonly records: ServerRecords;
  private readonly log: Logger;
  private readonly http = upstreamFetch();
  private running = new Map<string, Running>();
  private stored = new Map<string, ServerRecord>();
  private catalogNow: Catalog;
  /** What each list looked like when the catalog was last built, to tell clients only real changes. */
  private signature = { tools: '', prompts: '', resources: '' };
  private readonly listeners = new Set<(c: CatalogChange) => void>();
  private rebuildQueued = false;
  private appliedConfig: GatewayConfig | undefined;
  private seen = 0;
  private lastSync = 0;
  private poller: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private closed = false;

  constructor(host: McpHost) {
    this.host = host;
    this.records = new ServerRecords(host.store.namespace('mcp'));
    this.log = host.log.child({ component: 'mcp' });
    this.catalogNow = new Catalog([], this.settings.max_tool_name_length);
  }

  get settings(): McpSettings {
    return this.host.snapshot.config.mcp;
  }

  /** The catalog now (servers that are up). */
  catalog(): Catalog {
    return this.catalogNow;
  }

  /** A running server by name. */
  get(name: string): UpstreamServer | undefined {
    return this.running.get(name)?.server;
  }

  /** Every running server, file ones first (config order), then runtime ones (name order). */
  all(): Array<{ server: UpstreamServer; source: 'file' | 'runtime'; createdAt?: string }> {
    return [...this.running.values()];
  }

  /** Tells `fn` of every catalog change; returns the unsubscribe. */
  onChange(fn: (c: CatalogChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Starts the servers of the config and the store, and the poll. */
  async start(): Promise<void> {
    const version = this.host.sharedStore ? await this.records.changes.version() : 0;
    this.stored = await this.readRecords();
    this.apply();
    this.seen = version;
    this.lastSync = Date.now();
    this.schedule();
  }

  /** The next poll, POLL_MS after the last one ended: two never run at once. */
  private schedule(): void {
    if (this.closed) return;
    this.poller = setTimeout(() => {
      this.polling = this.poll().finally(() => {
        this.polling = undefined;
        this.schedule();
      });
    }, POLL_MS);
    this.poller.unref();
  }

  /**
   * Validates, stores and starts a runtime server; resolves once its first connection attempt
   * ended (up, or down with its error), at most `waitMs` later.
   * @throws GatewayError 409 name taken, 400 invalid section.
   */
  create(name: string, section: Record<string, unknown>, waitMs: number): Promise<UpstreamServer> {
    return this.change(async () => {
      if (Object.hasOwn(this.host.snapshot.config.mcp_servers, name))
        throw SERVER_EXISTS({ name, where: `defined in the config file ${this.host.snapshot.config.file}` });
      if (this.stored.has(name)) throw SERVER_EXISTS({ name, where: 'created at runtime' });
      const invalid = validate(mcpServerSchema, section);
      if (invalid) throw invalid;
      const parsed = mcpServerSchema.parse(section);
      const rec: ServerRecord = { name, created_at: new Date(this.host.clock()).toISOString(), section };
      await this.records.put(rec);
      this.stored = new Map(this.stored).set(name, rec);
      this.apply();
      await this.announce();
      this.log.info({ mcpServer: name, transport: parsed.transport }, 'MCP server created');
      return this.get(name)!;
    }).then(async (server) => {
      await settled(server, waitMs);
      return server;
    });
  }

  /**
   * Stops and forgets a runtime server.
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  delete(name: string): Promise<void> {
    return this.change(async () => {
      if (Object.hasOwn(this.host.snapshot.config.mcp_servers, name)) throw SERVER_IN_FILE({ name, file: this.host.snapshot.config.file });
      if (!this.stored.has(name)) throw SERVER_NOT_FOUND(name);
      await this.records.delete(name);
      const stored = new Map(this.stored);
      stored.delete(name);
      this.stored = stored;
      this.apply();
      await this.announce();
      this.log.info({ mcpServer: name }, 'MCP server deleted');
    });
  }

  /** Stops every server and the poll. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.poller);
    await this.polling;
    const all = [...this.running.values()];
    this.running = new Map();
    await Promise.all(all.map((r) => r.server.stop()));
    await this.http.close();
  }

  /** Under the change lock, after catching up with the other instances. */
  private change<T>(fn: () => Promise<T>): Promise<T> {
    return this.records.changes.exclusive(async () => {
      if (this.host.sharedStore) {
        this.stored = await this.readRecords();
        this.apply();
      }
      return fn();
    });
  }

  /** Tells the other instances (a failed bump is logged: the 30 s re-read still spreads the change). */
  private async announce(): Promise<void> {
    if (!this.host.sharedStore) return;
    try {
      const n = await this.records.changes.bump();
      if (n === this.seen + 1) this.seen = n;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not announce an MCP server change to other instances; they pick it up within 30 s');
    }
  }

  /** One tick: a reloaded config, and on a shared store the other instances' changes. */
  private async poll(): Promise<void> {
    try {
      if (this.host.sharedStore) {
        const v = await this.records.changes.version();
        if (v !== this.seen || Date.now() - this.lastSync >= RESYNC_MS) {
          const stored = await this.records.changes.exclusive(() => this.readRecords());
          this.seen = v;
          this.lastSync = Date.now();
          if (!sameRecords(stored, this.stored)) {
            this.stored = stored;
            this.apply();
            this.log.info({ runtime: stored.size }, 'MCP servers updated from the shared store');
            return;
          }
        }
      }
      if (this.host.snapshot.config !== this.appliedConfig) this.apply();
    } catch (err) {
      this.log.debug({ err: (err as Error).message }, 'MCP server poll failed');
    }
  }

  /** Runs what the config and the records say now: unchanged servers kept, changed ones restarted, removed ones stopped. */
  private apply(): void {
    const config = this.host.snapshot.config;
    this.appliedConfig = config;
    const next = new Map<string, Running>();
    const start = (name: string, section: McpServerConfig | Record<string, unknown>, source: 'file' | 'runtime', createdAt?: string) => {
      // the ping interval is part of what a server runs with: a reload that changes it restarts them
      const json = JSON.stringify([section, config.mcp.ping_interval_seconds]);
      const prev = this.running.get(name);
      if (prev && prev.json === json && prev.source === source) {
        next.set(name, prev);
        return;
      }
      const parsed = source === 'file' ? (section as McpServerConfig) : mcpServerSchema.parse(section);
      const server = new UpstreamServer(name, parsed, {
        pingIntervalMs: config.mcp.ping_interval_seconds * 1000,
        fetch: this.http.fetch,
        log: this.log,
        onChange: () => this.queueRebuild(),
      });
      next.set(name, { server, source, json, createdAt });
      server.start();
    };
    for (const [name, section] of Object.entries(config.mcp_servers)) start(name, section, 'file');
    for (const name of [...this.stored.keys()].sort()) {
      if (next.has(name)) {
        this.log.warn(`runtime MCP server '${name}' is shadowed by [mcp_servers.${name}] in the config file`);
        continue;
      }
      const rec = this.stored.get(name)!;
      start(name, rec.section, 'runtime', rec.created_at);
    }
    for (const [name, r] of this.running) if (next.get(name) !== r) void r.server.stop();
    this.running = next;
    this.queueRebuild();
  }

  /** Rebuilds the catalog once per burst of changes (a microtask later). */
  private queueRebuild(): void {
    if (this.rebuildQueued) return;
    this.rebuildQueued = true;
    queueMicrotask(() => {
      this.rebuildQueued = false;
      const catalog = new Catalog(
        [...this.running.values()].map((r) => r.server),
        this.settings.max_tool_name_length,
      );
      this.catalogNow = catalog;
      const sig = {
        tools: JSON.stringify([...catalog.tools.values()].map((e) => e.namespaced)),
        prompts: JSON.stringify([...catalog.prompts.values()].map((e) => e.namespaced)),
        resources: JSON.stringify([[...catalog.resources.keys()], catalog.templates.map((t) => t.template)]),
      };
      const change: CatalogChange = {
        tools: sig.tools !== this.signature.tools,
        prompts: sig.prompts !== this.signature.prompts,
        resources: sig.resources !== this.signature.resources,
      };
      this.signature = sig;
      if (!change.tools && !change.prompts && !change.resources) return;
      for (const fn of this.listeners) {
        try {
          fn(change);
        } catch (err) {
          this.log.error({ err }, 'MCP catalog listener failed');
        }
      }
    });
  }

  private async readRecords(): Promise<Map<string, ServerRecord>> {
    return this.records.all((name, err) => this.log.warn({ mcpServer: name, err: err.message }, 'unreadable runtime MCP server record skipped'));
  }
}

/** Resolves once `server` is past its first connection attempt, or after `ms`. */
function settled(server: UpstreamServer, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve) => {
    const check = () => {
      if (server.state !== 'connecting' || Date.now() >= deadline) resolve();
      else setTimeout(check, 25).unref();
    };
    check();
  });
}

function sameRecords(a: Map<string, ServerRecord>, b: Map<string, ServerRecord>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, rec] of a) {
    const o = b.get(name);
    if (!o || o.created_at !== rec.created_at || JSON.stringify(o.section) !== JSON.stringify(rec.section)) return false;
  }
  return true;
}
