/**
 * The `request_log` extension: the last `max_entries` gateway requests, failed ones included
 * (written from onFinish), in a store ring. Entries are written after the answer in batches
 * (FLUSH_MS, FLUSH_AT): a request never waits, a store failure loses entries only. Bodies only
 * with `log_bodies`. GET /v1/requests: entry.ts has the fields, query.ts the filters.
 */
import { z } from 'zod';
import { type Chunk, defineExtension, type FinishedRequest, type RequestContext, type ResponseInfo, type Store } from 'gw/plugin';
import { fromRow, type LogEntry, toRow, truncate } from './entry.ts';
import { endOf, type LogQuery, matches, parseLogQuery, SKEW_MS, type TagsOf } from './query.ts';
import { REQUESTS_OPENAPI } from './openapi.ts';

const PLUGIN_NAME = 'request_log';
const RING = 'log';
/** rc.state slot: the response body (log_bodies only). */
const BODY = Symbol('request_log.body');
/** At most one warning this often while writes fail (the store is away). */
const WARN_EVERY_MS = 10_000;
/** Queued entries are written this often, or as soon as this many are queued. */
const FLUSH_MS = 50;
const FLUSH_AT = 256;

const schema = z.strictObject({
  /** Entries kept (the oldest are dropped). */
  max_entries: z.number().int().positive().max(1_000_000).default(10_000),
  /** Keep request and response bodies (they may hold your users' data). */
  log_bodies: z.boolean().default(false),
  /** With log_bodies: each body is cut to this many bytes. */
  body_max_bytes: z.number().int().positive().max(1_048_576).default(8192),
});

/** A stream's events as sent, collected up to the size limit (log_bodies only). */
interface StreamBody {
  text: string;
  full: boolean;
}

/** Entries matching `q`, newest first; `tagsOf` answers a key's tags for a `tag` filter. */
export async function readLog(store: Store, q: LogQuery, tagsOf?: TagsOf): Promise<LogEntry[]> {
  const out: LogEntry[] = [];
  // a key's tags once per query, however many of its entries the scan meets
  const tags = new Map<string, Readonly<Record<string, string>> | undefined>();
  const cachedTags: TagsOf | undefined = tagsOf && ((key) => (tags.has(key) ? tags.get(key) : tags.set(key, tagsOf(key)).get(key)));
  for await (const [, raw] of store.ringRead(RING)) {
    const e = fromRow(JSON.parse(raw) as unknown[]);
    if (q.since !== undefined && endOf(e) < q.since - SKEW_MS) break;
    if (matches(q, e, cachedTags)) out.push(e);
    if (out.length >= q.limit) break;
  }
  return out;
}

export default defineExtension({
  name: PLUGIN_NAME,
  configSchema: schema,
  setup({ config, store, hooks, routes, gateway, log, secrets }) {
    const pending = new Set<Promise<unknown>>();
    let lastWarn = 0;
    let queue: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    const failed = (err: Error) => {
      const now = Date.now();
      if (now - lastWarn < WARN_EVERY_MS) return;
      lastWarn = now;
      log.warn({ err: err.message }, 'request log: could not write entries (more failures in the next 10 s are not logged)');
    };
    const flush = () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      const rows = queue;
      queue = [];
      // pushed in one tick: one batch on LevelDB, one pipeline on Redis; in order, so seq follows the end of requests
      const p = Promise.all(rows.map((row) => store.ringPush(RING, row, config.max_entries))).catch(failed);
      pending.add(p);
      void p.finally(() => pending.delete(p));
    };
    // keys are fixed per config (runtime keys too make it non-open): checked once per request is cheap, but not free
    let open = gateway.keyNames().length === 0;
    let openAt = Date.now();
    const max = config.body_max_bytes;

    if (config.log_bodies) {
      hooks.onResponse.tapPromise(PLUGIN_NAME, async (rc: RequestContext, info: ResponseInfo) => {
        if (info.body !== undefined) rc.state.set(BODY, info.body);
      });
      hooks.onChunk.tap(PLUGIN_NAME, (rc: RequestContext, chunk: Chunk) => {
        let b = rc.state.get(BODY) as StreamBody | undefined;
        if (!b) rc.state.set(BODY, (b = { text: '', full: false }));
        if (b.full) return;
        // the chunk or event as the client got it, one per line, in the client's format
        b.text += `${JSON.stringify(chunk.value)}\n`;
        if (b.text.length > max) b.full = true;
      });
    }

    hooks.onFinish.tap(PLUGIN_NAME, function logRequest(f: FinishedRequest) {
      const rc = f.rc;
      if (f.key === undefined && Date.now() - openAt > 1000) {
        open = gateway.keyNames().length === 0;
        openAt = Date.now();
      }
      let bodies: [string | null, string | null] | undefined;
      if (config.log_bodies) {
        const b = rc?.state.get(BODY) as string | StreamBody | undefined;
        // through the guardrails' detectors with redact_stored (else as they are), then cut
        bodies = [
          f.rawBody === undefined ? null : truncate(secrets.stored(f.rawBody), max),
          b === undefined ? null : truncate(secrets.stored(typeof b === 'string' ? b : b.text), max),
        ];
      }
      const row = toRow(f, open, bodies);
      queue.push(JSON.stringify(row));
      if (queue.length >= FLUSH_AT) flush();
      else if (!timer) {
        timer = setTimeout(flush, FLUSH_MS);
        timer.unref();
      }
    });

    routes.get(
      '/v1/requests',
      async (ctx) => {
        const q = parseLogQuery(ctx);
        ctx.type = 'application/json';
        ctx.body = JSON.stringify(await readLog(store, q, (key) => gateway.keyTags(key)));
      },
      REQUESTS_OPENAPI,
    );

    return {
      async close() {
        if (queue.length) flush();
        await Promise.all(pending);
      },
    };
  },
});
