/**
 * One upstream MCP server, as this instance keeps it: an SDK `Client` connected once and kept
 * (never an initialize per call), the server's tools, prompts and resources as last listed,
 * and its health.
 *
 *   connecting ──connected, lists read──▶ up ──3 missed pings / connection closed / crash──▶ down
 *        ▲                                                                                  │
 *        └──────────── reconnect after a backoff (250 ms doubling, at most one ping interval) ┘
 *
 * Pings run every `ping_interval_seconds` (15 s) while up; three misses in a row make it
 * `down`, which hides its tools (the catalog drops it) while the other servers keep answering.
 * A stdio server that exits is `down` at once and restarted on the same backoff; its last 50
 * stderr lines are kept across restarts. `list_changed` notifications refresh the lists, and
 * every change of state or lists is told to `onChange` (the catalog, then the clients).
 *
 * Version: streamable HTTP upstreams are probed for 2026-07-28 (`server/discover`) and fall
 * back to the 2025 `initialize` handshake; stdio and SSE servers get the 2025 handshake (a
 * probe would spawn a second process, and the SSE transport predates 2026). Whatever was
 * negotiated is what this upstream is spoken to in; a client's version never reaches it.
 */
import {
  Client,
  type FetchLike,
  type ListChangedHandlers,
  type Prompt,
  ProtocolError,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  type Tool,
} from '@modelcontextprotocol/client';
import type { Logger } from 'pino';
import { GW_VERSION } from '../../lib/package-info.ts';
import type { McpServerConfig } from '../../lib/config/mcp-schema.ts';
import { type OnProgress, relayProgress, request } from './progress.ts';
import { LineRing } from './stderr.ts';
import { type BuiltTransport, buildTransport, type Resume } from './transport.ts';

export type ServerState = 'connecting' | 'up' | 'down' | 'stopped';

/** What a server offers, as last listed. */
export interface ServerLists {
  tools: readonly Tool[];
  prompts: readonly Prompt[];
  resources: readonly Resource[];
  templates: readonly ResourceTemplate[];
}

const EMPTY: ServerLists = Object.freeze({ tools: [], prompts: [], resources: [], templates: [] });
/** Missed pings in a row that make a server `down`. */
export const MISSES_DOWN = 3;
const FIRST_RETRY_MS = 250;
/** list_changed notifications closer than this are read as one. */
const LIST_DEBOUNCE_MS = 50;

export interface ConnectionOptions {
  pingIntervalMs: number;
  /** The fetch of the HTTP transports (fetch.ts). */
  fetch: FetchLike;
  log: Logger;
  /** The server's state or lists changed. */
  onChange: (server: UpstreamServer) => void;
}

/** The gateway's client identity toward upstreams. */
export const CLIENT_INFO = { name: 'gw', version: GW_VERSION };

/**
 * A new SDK client for `config`, connected; `resume` continues an upstream session (streamable
 * HTTP) without a handshake. `onClose` is told when the connection closes under it.
 * @throws what connecting threw (unreachable, refused, a failed handshake).
 */
export async function connectClient(
  config: McpServerConfig,
  timeoutMs: number,
  fetch: FetchLike,
  opts: { resume?: Resume; listChanged?: ListChangedHandlers; legacy?: boolean; noListen?: boolean; stderr?: LineRing } = {},
): Promise<{ client: Client; built: BuiltTransport }> {
  const built = buildTransport(config, fetch, opts.resume, !opts.noListen);
  // read from the start: a child that fails its handshake says why on stderr
  if (built.stderr && opts.stderr) opts.stderr.follow(built.stderr);
  const client = new Client(CLIENT_INFO, {
    capabilities: {},
    versionNegotiation: { mode: config.transport === 'http' && !opts.resume && !opts.legacy ? 'auto' : 'legacy' },
    listChanged: opts.listChanged,
  });
  await client.connect(built.transport, { timeout: timeoutMs });
  relayProgress(client);
  return { client, built };
}

export class UpstreamServer {
  readonly name: string;
  readonly config: McpServerConfig;
  state: ServerState = 'connecting';
  /** When `state` last changed, epoch ms. */
  since = Date.now();
  lastError: string | undefined;
  lastErrorAt: number | undefined;
  /** Pings missed in a row. */
  misses = 0;
  /** The revision this upstream speaks, as negotiated. */
  protocolVersion: string | undefined;
  serverInfo: { name: string; version: string } | undefined;
  /** A streamable HTTP server that keeps sessions: each client session gets an upstream session of its own (session-pool.ts). */
  sessionful = false;
  lists: ServerLists = EMPTY;
  /** The child's process id while a stdio server runs. */
  pid: number | undefined;
  /** The child's last stderr lines (stdio). */
  readonly stderr = new LineRing(50);
  private client: Client | undefined;
  private readonly opts: ConnectionOptions;
  /** Bumped by every (re)connection and by stop(): late callbacks of an older client are ignored. */
  private generation = 0;
  private retries = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private pinging = false;
  private upWaiters: Array<() => void> = [];

  constructor(name: string, config: McpServerConfig, opts: ConnectionOptions) {
    this.name = name;
    this.config = config;
    this.opts = opts;
  }

  /** The fetch of its HTTP transports (a client session's own upstream sessions use it too). */
  get fetch(): FetchLike {
    return this.opts.fetch;
  }

  /** The longest wait for one answer, ms. */
  get timeoutMs(): number {
    return this.config.timeout_seconds * 1000;
  }

  /** Starts connecting (in the background). */
  start(): void {
    void this.connect();
  }

  /**
   * Sends a request to the server (the shared connection) and waits for its result. A server
   * that no longer knows gw's session (it restarted) is reconnected at once and asked again, once.
   * @throws SdkError/ProtocolError from the SDK; an SdkError NotConnected when it is not up.
   */
  async request(method: string, params: Record<string, unknown>, options: RequestOpts): Promise<unknown> {
    try {
      return await this.send(method, params, options);
    } catch (err) {
      if (!stale(err) || this.state !== 'up') throw err;
      this.fall('the server no longer knows its session with gw', 0);
      await this.whenUp(this.timeoutMs);
      return this.send(method, params, options);
    }
  }

  private send(method: string, params: Record<string, unknown>, options: RequestOpts): Promise<unknown> {
    const client = this.client;
    if (!client || this.state !== 'up') return Promise.reject(new SdkError(SdkErrorCode.NotConnected, `MCP server '${this.name}' is ${this.state}`));
    return request(client, method, params, { signal: options.signal, onprogress: options.onprogress, timeoutMs: this.timeoutMs });
  }

  /** Resolves once the server is up again, or after `ms`. */
  private whenUp(ms: number): Promise<void> {
    if (this.state === 'up') return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      this.upWaiters.push(done);
      function done() {
        clearTimeout(t);
        resolve();
      }
    });
  }

  /** Stops for good: no reconnection, the child (stdio) is ended. */
  async stop(): Promise<void> {
    this.generation++;
    this.setState('stopped');
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const gen = ++this.generation;
    this.setState('connecting');
    let client: Client | undefined;
    try {
      const debounced = (kind: 'tools' | 'prompts' | 'resources') => ({
        debounceMs: LIST_DEBOUNCE_MS,
        onChanged: (err: Error | null) => {
          if (gen !== this.generation) return;
          if (err) this.failed(`could not list ${kind}: ${err.message}`);
          else void this.refresh(gen);
        },
      });
      const made = await connectClient(this.config, this.timeoutMs, this.opts.fetch, {
        listChanged: { tools: debounced('tools'), prompts: debounced('prompts'), resources: debounced('resources') },
        stderr: this.stderr,
      });
      client = made.client;
      if (gen !== this.generation) {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      const transport = made.built.transport as { sessionId?: string; pid?: number | null };
      this.pid = transport.pid ?? undefined;
      this.sessionful = this.config.transport === 'http' && transport.sessionId !== undefined;
      this.protocolVersion = client.getNegotiatedProtocolVersion();
      const info = client.getServerVersion();
      this.serverInfo = info ? { name: info.name, version: info.version } : undefined;
      // a transport that reports an error (its notification stream dropped: the server may be
      // gone) is pinged at once, not at the next tick: a dead server is down sooner. Only the first
      // sign of trouble: once a ping was missed the others come at the interval, so a burst of
      // errors never makes three misses in a few milliseconds.
      const sdkError = client.onerror;
      client.onerror = (err) => {
        sdkError?.(err);
        if (gen === this.generation && this.state === 'up' && this.misses === 0) this.ping(gen);
      };
      // the SDK's own close hook, then ours: an exit (stdio) or a dropped stream (SSE) is a fall
      const sdkClose = client.onclose;
      client.onclose = () => {
        sdkClose?.();
        if (gen === this.generation) this.fall(this.config.transport === 'stdio' ? 'the process exited' : 'the connection closed');
      };
      await this.refresh(gen);
      if (gen !== this.generation) return;
      this.retries = 0;
      this.misses = 0;
      this.setState('up');
      this.startPings(gen);
    } catch (err) {
      await client?.close().catch(() => undefined);
      if (gen !== this.generation) return;
      this.client = undefined;
      // a child that died in its handshake: its last stderr line usually says why
      const said = this.config.transport === 'stdio' ? this.stderr.last() : undefined;
      this.fall(`cannot connect: ${describe(err)}${said ? ` (stderr: ${said})` : ''}`);
    }
  }

  /** Reads the server's tools, prompts, resources and templates (what it has the capability for). */
  private async refresh(gen: number): Promise<void> {
    const client = this.client;
    if (!client) return;
    const caps = client.getServerCapabilities() ?? {};
    const opts = { timeout: this.timeoutMs, cacheMode: 'bypass' as const };
    try {
      const [tools, prompts, resources, templates] = await Promise.all([
        caps.tools ? client.listTools(undefined, opts).then((r) => r.tools) : [],
        caps.prompts ? client.listPrompts(undefined, opts).then((r) => r.prompts) : [],
        caps.resources ? client.listResources(undefined, opts).then((r) => r.resources) : [],
        caps.resources ? client.listResourceTemplates(undefined, opts).then((r) => r.resourceTemplates) : [],
      ]);
      if (gen !== this.generation) return;
      this.lists = { tools, prompts, resources, templates };
      this.opts.onChange(this);
    } catch (err) {
      if (gen !== this.generation) return;
      // connecting: the caller's catch makes it a fall; up: the lists stay as they were
      if (this.state !== 'up') throw err;
      this.failed(`could not list: ${describe(err)}`);
    }
  }

  private startPings(gen: number): void {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => this.ping(gen), this.opts.pingIntervalMs);
    this.pingTimer.unref();
  }

  /** One ping (none while one is out): a miss counts toward MISSES_DOWN, an answer resets them. */
  private ping(gen: number): void {
    if (gen !== this.generation || this.pinging || this.state !== 'up') return;
    this.pinging = true;
    const every = this.opts.pingIntervalMs;
    // a ping answered later than the next one is due counts as missed
    this.client!.ping({ timeout: Math.max(100, every - 50) })
      .then(
        () => {
          if (gen === this.generation) this.misses = 0;
        },
        (err: unknown) => {
          if (gen !== this.generation) return;
          // the server restarted and forgot gw's session: a new one at once, not three misses later
          if (stale(err)) return this.fall('the server no longer knows its session with gw', 0);
          this.misses++;
          this.failed(`missed ping ${this.misses} of ${MISSES_DOWN}: ${describe(err)}`);
          if (this.misses >= MISSES_DOWN) this.fall(`${MISSES_DOWN} pings missed in a row`);
        },
      )
      .finally(() => {
        this.pinging = false;
      });
  }

  /** Goes `down` (tools hidden), drops the connection and reconnects after the backoff (or `delayMs`). */
  private fall(why: string, delayMs?: number): void {
    this.generation++;
    clearInterval(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    this.pid = undefined;
    void client?.close().catch(() => undefined);
    this.failed(why);
    if (this.config.transport === 'stdio') this.stderr.note(`[gw] ${why}; restarting`);
    this.setState('down');
    // at most one ping interval: a server back up is seen within one interval
    const delay = delayMs ?? Math.min(this.opts.pingIntervalMs, FIRST_RETRY_MS * 2 ** this.retries);
    this.retries = Math.min(this.retries + 1, 16);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), delay * (0.8 + Math.random() * 0.2));
    this.retryTimer.unref();
  }

  private failed(why: string): void {
    this.lastError = why;
    this.lastErrorAt = Date.now();
    this.opts.log.warn({ mcpServer: this.name, err: why }, 'MCP server');
  }

  private setState(s: ServerState): void {
    if (this.state === s) return;
    this.state = s;
    this.since = Date.now();
    if (s === 'up') for (const w of this.upWaiters.splice(0)) w();
    if (s !== 'stopped') this.opts.onChange(this);
  }
}

type RequestOpts = { signal?: AbortSignal; onprogress?: OnProgress };

/** JSON-RPC code some servers answer a stale session with (the SDK's "Session not found"). */
const SESSION_NOT_FOUND = -32001;

/** The upstream no longer knows the session: HTTP 404 on a request that carried its id, or the SDK's "Session not found". */
export function stale(err: unknown): boolean {
  return (err instanceof SdkHttpError && err.status === 404) || (err instanceof ProtocolError && err.code === SESSION_NOT_FOUND);
}

/** A failure as one line: the SDK's message, an HTTP status, a JSON-RPC code. */
export function describe(err: unknown): string {
  if (err instanceof ProtocolError) return `${err.message} (${err.code})`;
  if (err instanceof Error) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return cause ? `${err.message} (${cause})` : err.message;
  }
  return String(err);
}
