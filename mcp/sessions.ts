/**
 * 2025-11-25 sessions (`initialize`, then `Mcp-Session-Id` on every request), kept in the store
 * so that on a shared store (Redis) any instance serves any request of any session: nothing a
 * session needs lives in one process's memory.
 *
 *   mcp:session:<id>  JSON SessionRecord, expiring `session_idle_seconds` (30 min) after its
 *                     last request: each request read it, and one a minute (per instance)
 *                     writes it again with a fresh TTL
 *
 * On a store only this process opens (LevelDB) the records are also kept in memory (the store
 * keeps them across a restart): no read per request. On a shared store every request reads the
 * record, so a session another instance ended is ended here too.
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

interface Touched {
  /** When this instance last wrote the record's TTL, epoch ms. */
  at: number;
  /** The record (kept only on a store no other process opens). */
  rec?: SessionRecord;
  /** When it expires unless used again, epoch ms (with `rec`). */
  until?: number;
}

export class Sessions {
  private readonly store: Store;
  private readonly idleMs: () => number;
  private readonly local: boolean;
  private readonly touched = new Map<string, Touched>();

  /**
   * @param store the `mcp` namespace; @param idleMs the idle TTL now (`[mcp] session_idle_seconds`,
   * reloadable); @param shared other processes open the store (records are then never cached).
   */
  constructor(store: Store, idleMs: () => number, shared: boolean) {
    this.store = store;
    this.idleMs = idleMs;
    this.local = !shared;
  }

  /** Stores a new session; its id (a random UUID). */
  async create(rec: SessionRecord): Promise<string> {
    const id = randomUUID();
    await this.store.set(PREFIX + id, JSON.stringify(rec), { ttlMs: this.idleMs() });
    this.remember(id, rec);
    return id;
  }

  /** The session `id`, its idle TTL restarted (at most once a minute per instance); undefined when unknown or expired. */
  async get(id: string): Promise<SessionRecord | undefined> {
    const now = Date.now();
    const kept = this.touched.get(id);
    if (kept?.rec && kept.until! > now) {
      kept.until = now + this.idleMs();
      if (now - kept.at > TOUCH_EVERY_MS) {
        kept.at = now;
        await this.store.set(PREFIX + id, JSON.stringify(kept.rec), { ttlMs: this.idleMs() });
      }
      return kept.rec;
    }
    const text = await this.store.get(PREFIX + id);
    if (text === undefined) return undefined;
    let rec: SessionRecord;
    try {
      rec = JSON.parse(text) as SessionRecord;
    } catch {
      return undefined;
    }
    if (kept === undefined || now - kept.at > TOUCH_EVERY_MS) {
      this.remember(id, rec);
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
      this.remember(id, rec);
    });
  }

  /** Ends a session; the record it had (undefined when there was none). */
  async delete(id: string): Promise<SessionRecord | undefined> {
    const rec = await this.get(id);
    this.touched.delete(id);
    await this.store.delete(PREFIX + id);
    return rec;
  }

  private remember(id: string, rec: SessionRecord): void {
    const now = Date.now();
    this.touched.delete(id);
    this.touched.set(id, this.local ? { at: now, rec, until: now + this.idleMs() } : { at: now });
    if (this.touched.size > TOUCHED_MAX) this.touched.delete(this.touched.keys().next().value!);
  }
}
