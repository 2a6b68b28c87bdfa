/**
 * Stored responses (`store: true`, OpenAI's default), in the format's store namespace
 * (`format:openai-responses:`), so every instance on a shared Redis store sees them.
 *
 * One value per response and owner, `r:<response id>:<owner>` (the owner is the gateway
 * key's name, '' when the gateway runs open): a lookup with another key finds nothing, which
 * is the 404 the other key gets. Each record holds the response as answered, the request's
 * own input items (not the history it continued), the provider that served it, the ids of
 * the responses it continued, oldest first, so a conversation's history is read in a few
 * rounds of parallel gets instead of one get per turn, and the size of its items and of the
 * conversation through it (record.ts). Records expire `ttl_days` after they
 * were written (each its own TTL: a conversation can be continued for `ttl_days` after its
 * first response).
 */
import type { Store } from 'gw/plugin';
import { RESPONSE_UNREADABLE } from './errors.ts';
import { decodeRecord, encodeRecord, type StoredResponse } from './record.ts';

export type { StoredResponse } from './record.ts';

/** A record read back: the record, `'absent'` (never stored, expired, deleted, another owner's), or `'unreadable'`. */
export type ReadRecord = StoredResponse | 'absent' | 'unreadable';

/** Records read in parallel by {@link ResponseStore.records}: enough for one round trip to cover a long chain in a few. */
const READ_WINDOW = 32;

export class ResponseStore {
  readonly #store: Store;
  readonly #ttlMs: number;

  /** `store`: the format's namespace; `ttlDays`: `[responses] ttl_days`. */
  constructor(store: Store, ttlDays: number) {
    this.#store = store;
    this.#ttlMs = Math.round(ttlDays * 86_400_000);
  }

  #key(id: string, owner: string): string {
    return `r:${id}:${owner}`;
  }

  /**
   * Writes a record (replacing one with the same id and owner), with its size and, when
   * `before` is known, its conversation's total (`before`: the total of the conversation it
   * continues; 0 when it starts one). Durable when resolved.
   */
  async put(owner: string, rec: StoredResponse, before: number | undefined): Promise<void> {
    await this.#store.set(this.#key(rec.response.id, owner), encodeRecord(rec, before), { ttlMs: this.#ttlMs });
  }

  async #read(owner: string, id: string): Promise<ReadRecord> {
    const text = await this.#store.get(this.#key(id, owner));
    if (text === undefined) return 'absent';
    return decodeRecord(text) ?? 'unreadable';
  }

  /**
   * The record, or undefined (absent, expired, deleted, or another owner's).
   * @throws RESPONSE_UNREADABLE (409, `param` = `param`) when the stored text is not a record.
   */
  async get(owner: string, id: string, param = 'response_id'): Promise<StoredResponse | undefined> {
    const rec = await this.#read(owner, id);
    if (rec === 'unreadable') throw RESPONSE_UNREADABLE({ id, what: param === 'previous_response_id' ? 'previous response' : 'response' }, { param });
    return rec === 'absent' ? undefined : rec;
  }

  /**
   * The records of `ids`, in order, read {@link READ_WINDOW} at a time: a caller that keeps
   * only what it needs of each holds one window of records at once, and one that stops early
   * reads no further.
   */
  async *records(owner: string, ids: readonly string[]): AsyncGenerator<[id: string, rec: ReadRecord]> {
    for (let at = 0; at < ids.length; at += READ_WINDOW) {
      const window = ids.slice(at, at + READ_WINDOW);
      const got = await Promise.all(window.map((id) => this.#read(owner, id)));
      for (let i = 0; i < window.length; i++) yield [window[i]!, got[i]!];
    }
  }

  /** Deletes the record (a damaged one too); true when there was one. */
  async delete(owner: string, id: string): Promise<boolean> {
    const key = this.#key(id, owner);
    if ((await this.#store.get(key)) === undefined) return false;
    await this.#store.delete(key);
    return true;
  }
}
