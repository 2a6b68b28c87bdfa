/**
 * The unanswered function calls of a Gemini conversation, paired with answers by
 * `functionCall.id`, else the earliest of the same name (Gemini pairs by order). One queue per
 * id and per name; an answered call is skipped, not spliced, so n pairs cost O(n).
 * why: docs/benchmarks.md#gemini-open-calls
 * @see Gemini API docs: Function calling
 */

/** A function call not yet answered by a functionResponse. */
export interface OpenCall {
  /** The `functionCall.id` the client sent, if any. */
  clientId: string | undefined;
  name: string;
  /** The common-format tool-call id. */
  id: string;
}

/** A call in the queues; `taken` is shared by the id queue and the name queue it sits in. */
interface Entry {
  call: OpenCall;
  taken: boolean;
}

/** A FIFO of entries; `head` skips the ones taken. */
interface Queue {
  entries: Entry[];
  head: number;
}

export class OpenCalls {
  /** By client id: one entry (ids are nearly always unique), or a queue of them. */
  readonly #byId = new Map<string, Entry | Queue>();
  readonly #byName = new Map<string, Entry | Queue>();

  /** A call the model made; answers may take it from now on. */
  add(call: OpenCall): void {
    const entry: Entry = { call, taken: false };
    if (call.clientId !== undefined) enqueue(this.#byId, call.clientId, entry);
    enqueue(this.#byName, call.name, entry);
  }

  /** Takes the earliest open call whose client id is `id` (when given), else the earliest named `name`; undefined when none is open. */
  take(id: string | undefined, name: string): OpenCall | undefined {
    const entry = (id === undefined ? undefined : first(this.#byId.get(id))) ?? first(this.#byName.get(name));
    if (entry === undefined) return undefined;
    entry.taken = true;
    return entry.call;
  }
}

/** The earliest entry not yet taken (taken ones at the front of a queue are dropped). */
function first(q: Entry | Queue | undefined): Entry | undefined {
  if (q === undefined) return undefined;
  if (!('entries' in q)) return q.taken ? undefined : q;
  while (q.head < q.entries.length) {
    const entry = q.entries[q.head]!;
    if (!entry.taken) return entry;
    q.head++;
  }
  return undefined;
}

function enqueue(index: Map<string, Entry | Queue>, key: string, entry: Entry): void {
  const q = index.get(key);
  if (q === undefined) index.set(key, entry);
  else if ('entries' in q) q.entries.push(entry);
  else index.set(key, { entries: [q, entry], head: 0 });
}
