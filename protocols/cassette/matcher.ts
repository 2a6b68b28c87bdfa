/**
 * Which recording answers a request, by `exact` or `sequence` matching as docs/record-replay.md
 * ("Matching") describes. A miss is explained: the nearest recording of the same route
 * (fewest differing leaves) and the first JSON path where the request differs from it.
 */
import { bodyText, parseKept } from './canonical.ts';
import { compilePath, firstDifference, type JsonPath, removePath } from './json-path.ts';
import type { CassetteLine } from './reader.ts';

export type MatchMode = 'exact' | 'sequence';

/** Why a request found no recording, and the recording nearest to it. */
export interface Miss {
  /** What went wrong, in a few words. */
  reason: string;
  nearest?: CassetteLine;
  /** The first difference from `nearest`: its path ('route' when the routes differ), and both values cut to 200 characters. */
  path?: string;
  recorded?: string;
  got?: string;
}

/** The conversation arrays of the formats gw speaks, and the fields that belong to a conversation's start. */
const CONVERSATIONS = ['messages', 'input', 'contents'];
const PREAMBLE = ['model', 'system', 'instructions', 'systemInstruction', 'system_instruction'];

interface Indexed {
  line: CassetteLine;
  /** The recorded body minus ignored paths. */
  normalized: unknown;
}

export class Matcher {
  readonly mode: MatchMode;
  readonly #ignore: readonly JsonPath[];
  /** Match key → recordings in cassette order. */
  readonly #byKey = new Map<string, Indexed[]>();
  /** Match key → calls taken so far. */
  readonly #taken = new Map<string, number>();
  readonly #all: Indexed[] = [];
  /** Ids of the recordings served. */
  readonly used = new Set<string>();
  /** Whether a recorded body holds a scrubbed secret: only then must a request be scrubbed before comparing. */
  readonly scrubbed: boolean;

  /** @throws Error naming an `ignore` path that does not compile. */
  constructor(lines: readonly CassetteLine[], opts: { mode?: MatchMode; ignore?: readonly string[] } = {}) {
    this.mode = opts.mode ?? 'exact';
    this.#ignore = (opts.ignore ?? []).map(compilePath);
    let scrubbed = false;
    for (const line of lines) {
      if (!scrubbed && bodyText(line.entry.request.body).includes('[redacted')) scrubbed = true;
      const normalized = this.#normalize(structuredClone(line.entry.request.body));
      const indexed = { line, normalized };
      this.#all.push(indexed);
      // the hash is computed, never read: an entry edited by hand matches by what it says
      const key = this.#key(line.entry.route, normalized);
      const list = this.#byKey.get(key);
      if (list) list.push(indexed);
      else this.#byKey.set(key, [indexed]);
    }
    this.scrubbed = scrubbed;
  }

  /** Recordings held. */
  get size(): number {
    return this.#all.length;
  }

  /**
   * The recording that answers a request, or undefined (then `explain` says why).
   * @param route `METHOD /path?query` (route.ts)
   * @param text the request body as a cassette keeps it: canonical and scrubbed (canonical.ts `canonicalText`)
   */
  take(route: string, text: string): CassetteLine | undefined {
    // with nothing ignored an exact key is the canonical text itself: no second pass over the body
    const key = this.mode === 'exact' && this.#ignore.length === 0 ? `${route}\n${text}` : this.#key(route, this.#normalize(parseKept(text)));
    const list = this.#byKey.get(key);
    if (!list) return undefined;
    const n = this.#taken.get(key) ?? 0;
    if (n >= list.length && this.mode === 'sequence') return undefined;
    this.#taken.set(key, n + 1);
    const hit = list[Math.min(n, list.length - 1)]!.line;
    this.used.add(hit.entry.id);
    return hit;
  }

  /** Why `take` found nothing for this request (its body text as `take` got it). */
  explain(route: string, text: string): Miss {
    const normalized = this.#normalize(parseKept(text));
    if (this.mode === 'sequence') {
      const list = this.#byKey.get(this.#key(route, normalized));
      if (list) {
        const last = list[list.length - 1]!;
        const diff = firstDifference(last.normalized, normalized);
        return {
          reason: `this conversation had ${list.length} recorded call${list.length === 1 ? '' : 's'} and this is call ${list.length + 1}`,
          nearest: last.line,
          ...(diff && { path: diff.path || '(body)', recorded: diff.recorded, got: diff.got }),
        };
      }
    }
    const sameRoute = this.#all.filter((i) => i.line.entry.route === route);
    if (sameRoute.length === 0) {
      const any = this.#all[0];
      return any
        ? { reason: `no recording of ${route}`, nearest: any.line, path: 'route', recorded: any.line.entry.route, got: route }
        : { reason: 'the cassette holds no recording for this provider' };
    }
    // a sequence compares conversation starts: the difference that made it miss is there
    const compared = this.mode === 'sequence' ? conversationStart : (body: unknown) => body;
    const got = compared(normalized);
    let best: { indexed: Indexed; diff: NonNullable<ReturnType<typeof firstDifference>> } | undefined;
    for (const indexed of sameRoute) {
      const diff = firstDifference(compared(indexed.normalized), got);
      // equal past `ignore` yet not taken: every call of its conversation was served
      if (!diff) return { reason: 'every recording of this request was served', nearest: indexed.line };
      if (!best || diff.count < best.diff.count) best = { indexed, diff };
    }
    return {
      reason: this.mode === 'sequence' ? 'no recording of this conversation' : 'no recording of this request',
      nearest: best!.indexed.line,
      path: best!.diff.path || '(body)',
      recorded: best!.diff.recorded,
      got: best!.diff.got,
    };
  }

  #normalize(body: unknown): unknown {
    for (const path of this.#ignore) removePath(body, path);
    return body;
  }

  /** The match key: the route and the canonical text of what is compared (a Map hashes it; no digest needed). */
  #key(route: string, normalized: unknown): string {
    return `${route}\n${bodyText(this.mode === 'sequence' ? conversationStart(normalized) : normalized)}`;
  }
}

/** The part of a body that names its conversation: its preamble and its turns up to the first user turn. */
export function conversationStart(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of PREAMBLE) if (Object.hasOwn(record, name)) out[name] = record[name];
  for (const name of CONVERSATIONS) {
    const turns = record[name];
    if (turns === undefined) continue;
    if (!Array.isArray(turns)) {
      out[name] = turns;
      continue;
    }
    const first = turns.findIndex((t) => t !== null && typeof t === 'object' && (t as { role?: unknown }).role === 'user');
    out[name] = first < 0 ? turns : turns.slice(0, first + 1);
  }
  return out;
}
