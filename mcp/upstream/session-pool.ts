/**
 * Upstream sessions per client session, for streamable HTTP servers that keep sessions: a
 * client session's calls reach the upstream in an upstream session of its own (one
 * `initialize` per client session and server, never one per call), and that session's id is
 * kept in the client session's record (sessions.ts), so another instance continues it
 * without a handshake: a transport built with the stored id and negotiated version.
 *
 * A stale upstream session (the server answers 404: it restarted, or expired the session) is
 * opened again once and the call retried; the new id replaces the old in the record. A client
 * session that ends (DELETE) ends its upstream sessions too. Clients idle for IDLE_MS are
 * closed here without ending their upstream session: another instance may still be using it.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Logger } from 'pino';
import type { SessionRecord, Sessions } from '../sessions.ts';
import { connectClient, describe, stale, type UpstreamServer } from './connection.ts';
import { type OnProgress, request } from './progress.ts';

const IDLE_MS = 5 * 60_000;

interface Pooled {
  client: Client;
  usedAt: number;
}

/** A client session as a call sees it: its id and record (updated here when an upstream session opens). */
export interface ClientSession {
  id: string;
  record: SessionRecord;
}

type Options = { signal?: AbortSignal; onprogress?: OnProgress };

export class SessionPool {
  private readonly sessions: Sessions;
  private readonly log: Logger;
  private readonly clients = new Map<string, Pooled>();
  /** Connections being opened, so parallel first calls of a session share one. */
  private readonly opening = new Map<string, Promise<Client>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sessions: Sessions, log: Logger) {
    this.sessions = sessions;
    this.log = log;
    this.sweeper = setInterval(() => this.sweep(), IDLE_MS / 5);
    this.sweeper.unref();
  }

  /**
   * Sends `method` to `server` in the client session's upstream session.
   * @throws what the SDK throws (a stale session is reopened and retried once first).
   */
  async request(session: ClientSession, server: UpstreamServer, method: string, params: Record<string, unknown>, opts: Options): Promise<unknown> {
    const client = await this.client(session, server, false);
    const send = (c: Client) => request(c, method, params, { ...opts, timeoutMs: server.timeoutMs });
    try {
      return await send(client);
    } catch (err) {
      if (!stale(err)) throw err;
      this.log.info({ mcpServer: server.name, session: session.id }, 'stale upstream MCP session: opening a new one and retrying');
      return send(await this.client(session, server, true));
    }
  }

  /** Ends the upstream sessions of a client session that ended (DELETE). */
  async end(sessionId: string, record: SessionRecord | undefined, servers: (name: string) => UpstreamServer | undefined): Promise<void> {
    for (const [name, up] of Object.entries(record?.upstream ?? {})) {
      const key = `${sessionId}\u0000${name}`;
      const pooled = this.clients.get(key);
      this.clients.delete(key);
      try {
        let client = pooled?.client;
        const server = servers(name);
        if (!client && server)
          client = (
            await connectClient(server.config, server.timeoutMs, server.fetch, { resume: { sessionId: up.id, protocolVersion: up.version }, noListen: true })
          ).client;
        const transport = client?.transport as { terminateSession?: () => Promise<void> } | undefined;
        await transport?.terminateSession?.();
        await client?.close();
      } catch (err) {
        this.log.debug({ mcpServer: name, err: describe(err) }, 'could not end an upstream MCP session');
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map((p) => p.client.close().catch(() => undefined)));
  }

  /** This session's client for `server`: kept here, resumed from the record, or a new upstream session (`fresh`: always new). */
  private async client(session: ClientSession, server: UpstreamServer, fresh: boolean): Promise<Client> {
    const key = `${session.id}\u0000${server.name}`;
    const pooled = this.clients.get(key);
    if (pooled && !fresh) {
      pooled.usedAt = Date.now();
      return pooled.client;
    }
    if (pooled) {
      this.clients.delete(key);
      void pooled.client.close().catch(() => undefined);
    }
    let opening = fresh ? undefined : this.opening.get(key);
    if (!opening) {
      opening = this.open(session, server, fresh).finally(() => this.opening.delete(key));
      this.opening.set(key, opening);
    }
    const client = await opening;
    this.clients.set(key, { client, usedAt: Date.now() });
    return client;
  }

  private async open(session: ClientSession, server: UpstreamServer, fresh: boolean): Promise<Client> {
    const known = fresh ? undefined : session.record.upstream?.[server.name];
    // a server with sessions speaks the 2025 handshake: no probe; its notifications come through the shared connection
    const { client, built } = await connectClient(server.config, server.timeoutMs, server.fetch, {
      resume: known ? { sessionId: known.id, protocolVersion: known.version } : undefined,
      legacy: true,
      noListen: true,
    });
    if (!known) {
      const id = (built.transport as { sessionId?: string }).sessionId;
      const up = id === undefined ? undefined : { id, version: client.getNegotiatedProtocolVersion() };
      session.record.upstream = { ...session.record.upstream };
      if (up) session.record.upstream[server.name] = up;
      else delete session.record.upstream[server.name];
      await this.sessions.setUpstream(session.id, server.name, up);
    }
    return client;
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_MS;
    for (const [key, p] of this.clients) {
      if (p.usedAt > cutoff) continue;
      this.clients.delete(key);
      void p.client.close().catch(() => undefined);
    }
  }
}
