/**
 * MCP servers created at runtime (`POST /v1/admin/mcp-servers`, `gw mcp add`), kept in the
 * store namespace `mcp:` so they survive a restart and, on a shared store, every instance runs
 * them; the same rules as runtime providers (server/runtime/records.ts):
 *
 *   mcp:server:<name>  JSON ServerRecord: the section as a `[mcp_servers.<name>]` table holds it
 *   mcp:version        counter `{n}`, +1 after every change: instances sharing the store poll it
 *   lock `mcp:changes` held by every change, so two never interleave
 */
import { mcpServerSchema } from '../lib/config/mcp-schema.ts';
import { ChangeCounter } from '../lib/store/changes.ts';
import type { Store } from '../lib/store/types.ts';

/** A runtime MCP server as stored. */
export interface ServerRecord {
  name: string;
  /** ISO 8601 creation time. */
  created_at: string;
  /** The section as given (validated by mcpServerSchema on every read). */
  section: Record<string, unknown>;
}

const SERVER = 'server:';

export class ServerRecords {
  private readonly store: Store;
  /** `mcp:version` and the lock `mcp:changes`. */
  readonly changes: ChangeCounter;

  /** @param store the `mcp` namespace of the gateway's store. */
  constructor(store: Store) {
    this.store = store;
    this.changes = new ChangeCounter(store);
  }

  /** Every stored server, by name; a record that does not validate is skipped and reported. */
  async all(onBad: (name: string, err: Error) => void): Promise<Map<string, ServerRecord>> {
    const out = new Map<string, ServerRecord>();
    for await (const [k, v] of this.store.entries(SERVER)) {
      const name = k.slice(SERVER.length);
      try {
        const rec = JSON.parse(v) as ServerRecord;
        // a record is trusted no more than a config file: another gw version may have written it
        const parsed = mcpServerSchema.safeParse(rec?.section);
        if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'invalid section');
        out.set(name, { name, created_at: String(rec.created_at), section: rec.section });
      } catch (err) {
        onBad(name, err as Error);
      }
    }
    return out;
  }

  /** Whether any server is stored (valid or not), without reading the records. */
  async any(): Promise<boolean> {
    for await (const _ of this.store.entries(SERVER)) return true;
    return false;
  }

  put(rec: ServerRecord): Promise<void> {
    return this.store.set(SERVER + rec.name, JSON.stringify(rec));
  }

  delete(name: string): Promise<void> {
    return this.store.delete(SERVER + name);
  }
}
