/**
 * 2025-11-25 sessions (`initialize`, then `Mcp-Session-Id` on every request), kept in the store
 * so that on a shared store (Redis) any instance serves any request of any session: nothing a
 * session needs lives in one process's memory.
 *
 *   mcp:session:<id>  JSON SessionRecord, expiring `session_idle_seconds` (30 min) after its
 *                     last request: each request read it, and one a minute (per instance)
 *                     writes it again with a fresh TTL
 *
 * A session belongs to the key that opened it: the same id with another key is "not found",
 * exactly as an unknown id. What the key may use is never kept here: it is read from the
 * running keys on every request, so a revoked key or a narrowed `mcp_tools` holds at the next
 * request of a live session, on every instance (docs/mcp.md "Sessions").
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../lib/store/types.ts';

/** An upstream session a client session opened on a streamable HTTP server (session-pool.ts). */
export interface UpstreamSession {
  id: string;
  /** The revision that upstream session negotiated. */
  version: string | undefined;
}

export interface SessionRecord {
  /** The key name that opened it. */
  key: string;
  /** The revision negotiated with the client. */
  version: string;
  /** `clientInfo` and `capabilities` of its initialize. */
  client?: { name?: string; version?: string };
  capabilities?: Record<string, unknown>;
  /** The server of `/mcp/<server>` it was opened on; null for `/mcp`. */
  scope: string | null;
  /** Epoch ms. */
  created: number;
  /** Upstream sessions by server name. */
  upstream?: Record<string, UpstreamSession>;
}

const PREFIX = 'session:';
/** A session's TTL is written again at most this often per instance. */
const TOUCH_EVERY_MS = 60_000;
/** Sessions this instance touched and when (bounded: least recently touched dropped first). */
const TOUCHED_MAX = 100_000;

export class Sessions {
  private readonly store: Store;
  private readonly idleMs: () => number;
  private readonly touched = new Map<string, number>();

  /** @param store the `mcp` namespace; @param idleMs the idle TTL now (`[mcp] session_idle_seconds`, reloadable). */
  constructor(store: Store, idleMs: () => number) {
    this.store = store;
    this.idleMs = idleMs;
  }

  /** Stores a new session; its id (a random UUID). */
  async create(rec: SessionRecord): Promise<string> {
    const id = randomUUID();
    await this.store.set(PREFIX + id, JSON.stringify(rec), { ttlMs: this.idleMs() });
    this.remember(id);
    return id;
  }

  /** The session `id`, its idle TTL restarted (at most once a minute per instance); undefined when unknown or expired. */
  async get(id: string): Promise<SessionRecord | undefined> {
    const text = await this.store.get(PREFIX + id);
    if (text === undefined) return undefined;
    let rec: SessionRecord;
    try {
      rec = JSON.parse(text) as SessionRecord;
    } catch {
      return undefined;
    }
    const last = this.touched.get(id);
    if (last === undefined || Date.now() - last > TOUCH_EVERY_MS) {
      this.remember(id);
      await this.store.set(PREFIX + id, text, { ttlMs: this.idleMs() });
    }
    return rec;
  }

  /**
   * Records the upstream session a client session opened on `server` (read-modify-write under
   * the session's lock: two instances opening upstream sessions at once keep both records whole).
   */
  async setUpstream(id: string, server: string, up: UpstreamSession | undefined): Promise<void> {
    await this.store.withLock(PREFIX + id, async () => {
      const text = await this.store.get(PREFIX + id);
      if (text === undefined) return;
      const rec = JSON.parse(text) as SessionRecord;
      const upstream = { ...rec.upstream };
      if (up) upstream[server] = up;
      else delete upstream[server];
      rec.upstream = upstream;
      await this.store.set(PREFIX + id, JSON.stringify(rec), { ttlMs: this.idleMs() });
    });
  }

  /** Ends a session; the record it had (undefined when there was none). */
  async delete(id: string): Promise<SessionRecord | undefined> {
    const rec = await this.get(id);
    this.touched.delete(id);
    await this.store.delete(PREFIX + id);
    return rec;
  }

  private remember(id: string): void {
    this.touched.delete(id);
    this.touched.set(id, Date.now());
    if (this.touched.size > TOUCHED_MAX) this.touched.delete(this.touched.keys().next().value!);
  }
}
