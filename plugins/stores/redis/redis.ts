/**
 * The shared store: Redis (ioredis), for instances that behave as one gateway; every multi-step
 * method one Lua script (redis-scripts.ts). Commands have a 2 s deadline and are never queued
 * while disconnected (503 `store_unavailable`: fail closed); a write whose answer was lost is
 * never applied twice. Key layout and faults: docs/operations.md "Several instances".
 */
import { randomBytes } from 'node:crypto';
import { errors, GatewayError, redactUrl, type Store, UserError } from 'gw/plugin';
import { type BucketRow, fitBound, type HoldOptions, type HoldVerdict, KeyLocks, type WindowVerdict } from 'gw/plugin/store';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { READ_MANY, SCRIPTS } from './redis-scripts.ts';

const { STORE_UNAVAILABLE } = errors;

/** Root of every key gw writes. */
const ROOT = 'gw:';

/** The keys of the holds on `full`: expiries (ZSET), amounts (HASH), sums per owner (HASH). */
const holdKeys = (full: string) => [`${ROOT}hx:${full}`, `${ROOT}ha:${full}`, `${ROOT}hs:${full}`] as const;
/** A store operation unanswered this long counts as Redis unavailable (docs/design.md "Store and processes"). */
export const OP_TIMEOUT_MS = 2000;
/** How long startup keeps trying to reach Redis before giving up (docs/design.md: exit within 15 s). */
export const START_TIMEOUT_MS = 5000;
/** Longest pause between reconnection attempts while serving. */
const RECONNECT_MAX_MS = 1000;
/** An instance's holds are dropped this long after its last heartbeat. */
const LIVENESS_TTL_MS = 15_000;
const HEARTBEAT_MS = 5000;
/** Failed releases remembered at most (beyond that, holds lapse by their own TTL). */
const MAX_ORPHANS = 100_000;
/** withLock: lock lifetime, renewed every LOCK_RENEW_MS while the holder runs. */
const LOCK_TTL_MS = 10_000;
const LOCK_RENEW_MS = 3000;
/** withLock gives up (503) after waiting this long for another holder. */
const LOCK_WAIT_MS = 30_000;
/** SCAN's COUNT hint: SCAN walks the whole keyspace (MATCH filters after), so take big steps. */
const SCAN_COUNT = 5000;
/** Keys read per READ_MANY script call in `entries` and `buckets`. */
const READ_BATCH = 256;
/** Most buckets one `buckets` call may span (a year of hours is 8760): a bigger span is a caller's bug. */
const MAX_BUCKETS = 100_000;
/** Ring values fetched per ZREVRANGEBYSCORE in `ringRead`. */
const RING_PAGE = 200;

type Script = (...args: Array<string | number>) => Promise<unknown>;
type Scripted = Redis & { [K in keyof typeof SCRIPTS | 'gwReadMany']: Script };

/** ReplyErrors that mean "Redis cannot serve right now", not "this command is wrong". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|MISCONF|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/;

/** State shared by every view of one connection. */
class Shared {
  readonly redis: Scripted;
  /** The URL without its password. */
  readonly url: string;
  /** This store's identity: hold owner and lock tokens. */
  readonly owner = randomBytes(9).toString('base64url');
  readonly locks = new KeyLocks();
  readonly liveKey: string;
  private seq = 0;
  heartbeat: NodeJS.Timeout | undefined;
  /** Holds to release once Redis answers again (see beat). */
  readonly orphans: Array<readonly [string, string, string, string]> = [];
  /** Set by close(): the connection's end is not an outage. */
  closing = false;

  constructor(redis: Scripted, url: string) {
    this.redis = redis;
    this.url = url;
    this.liveKey = `${ROOT}i:${this.owner}`;
  }

  /** A hold id as stored: prefixed with this store's owner, since callers' ids are unique per process only. */
  holdId(id: string): string {
    return `${this.owner}/${id}`;
  }

  /** A unique id for a window entry or a lock token. */
  uid(): string {
    return `${this.owner}.${(this.seq++).toString(36)}`;
  }

  /** Awaits a command; connection faults and timeouts become 503 `store_unavailable`. */
  async op<T>(p: Promise<T>): Promise<T> {
    try {
      return await p;
    } catch (err) {
      throw this.fault(err);
    }
  }

  fault(err: unknown): Error {
    if (err instanceof GatewayError) return err;
    const e = err as Error;
    // a ReplyError is Redis refusing this command (wrong type, script bug): a bug, not an outage
    if (e?.name === 'ReplyError' && !TRANSIENT_REPLY.test(e.message)) return e;
    return STORE_UNAVAILABLE(`Redis at ${this.url}: ${describe(e)}`, { headers: { 'retry-after': '1' }, cause: err });
  }

  /** Keeps this instance alive for its holds, and releases those whose settle or release failed while Redis was away. */
  async beat(): Promise<void> {
    await this.redis.set(this.liveKey, '1', 'PX', LIVENESS_TTL_MS);
    while (this.orphans.length) {
      // biome-ignore lint/plugin/no-unbounded-spread: a hold is its 4 keys
      await this.redis.gwRelease(...this.orphans[0]!);
      this.orphans.shift();
    }
  }

  /** Remembers a hold whose settle/release failed for want of Redis, to release it once back. */
  orphan(hold: readonly [string, string, string, string], err: unknown): void {
    if (STORE_UNAVAILABLE.is(err) && this.orphans.length < MAX_ORPHANS) this.orphans.push(hold);
  }
}

function describe(e: Error | undefined): string {
  const m = e?.message ?? String(e);
  if (m === 'Command timed out') return `no answer within ${OP_TIMEOUT_MS / 1000} s`;
  if (m.startsWith("Stream isn't writeable")) return 'not connected (reconnecting)';
  if (m.startsWith('Connection is closed')) return 'connection closed';
  if (e?.name === 'MaxRetriesPerRequestError') return 'connection lost';
  return m;
}

/** Redis glob metacharacters escaped, for SCAN MATCH. */
function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, '\\$&');
}

/** Byte order of the UTF-8 encodings (LevelDB's key order). */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function record(flat: unknown): Record<string, number> {
  const arr = flat as string[];
  const out: Record<string, number> = {};
  for (let i = 0; i < arr.length; i += 2) out[arr[i]!] = Number(arr[i + 1]);
  return out;
}

function deltaArgs(deltas: Record<string, number>): string[] {
  const args: string[] = [];
  for (const f in deltas) args.push(f, String(deltas[f]));
  return args;
}

class RedisView implements Store {
  private readonly s: Shared;
  private readonly prefix: string;
  private readonly root: boolean;

  constructor(s: Shared, prefix: string, root: boolean) {
    this.s = s;
    this.prefix = prefix;
    this.root = root;
  }

  private v(key: string): string {
    return `${ROOT}v:${this.prefix}${key}`;
  }

  namespace(ns: string): Store {
    return new RedisView(this.s, `${this.prefix}${ns}:`, false);
  }

  async get(key: string): Promise<string | undefined> {
    try {
      return (await this.s.redis.get(this.v(key))) ?? undefined;
    } catch (err) {
      // a counter read as a value: its JSON text, as LevelDB would give it
      if ((err as Error).message?.startsWith('WRONGTYPE')) return JSON.stringify(await this.counters(key));
      throw this.s.fault(err);
    }
  }

  async set(key: string, value: string, opts?: { ttlMs?: number }): Promise<void> {
    const k = this.v(key);
    if (opts?.ttlMs) await this.s.op(this.s.redis.set(k, value, 'PX', Math.max(1, Math.ceil(opts.ttlMs))));
    else await this.s.op(this.s.redis.set(k, value));
  }

  async delete(key: string): Promise<void> {
    await this.s.op(this.s.redis.unlink(this.v(key)));
  }

  async *entries(prefix = ''): AsyncIterable<[string, string]> {
    const keys = await this.scan(prefix);
    keys.sort(byteOrder);
    const cut = `${ROOT}v:${this.prefix}`.length;
    for (let i = 0; i < keys.length; i += READ_BATCH) {
      const batch = keys.slice(i, i + READ_BATCH);
      // biome-ignore lint/plugin/no-unbounded-spread: READ_BATCH keys at most
      const rows = (await this.s.op(this.s.redis.gwReadMany(batch.length, ...batch))) as Array<[string, unknown?]>;
      for (let j = 0; j < batch.length; j++) {
        const [kind, payload] = rows[j]!;
        if (kind === 's') yield [batch[j]!.slice(cut), payload as string];
        else if (kind === 'h') yield [batch[j]!.slice(cut), JSON.stringify(record(payload))];
      }
    }
  }

  async clear(prefix = ''): Promise<void> {
    const keys = await this.scan(prefix);
    // biome-ignore lint/plugin/no-unbounded-spread: 1000 keys at most
    for (let i = 0; i < keys.length; i += 1000) await this.s.op(this.s.redis.unlink(...keys.slice(i, i + 1000)));
  }

  /** Every value/counter key under `prefix` (full Redis keys, unordered). */
  private async scan(prefix: string): Promise<string[]> {
    const match = `${escapeGlob(this.v(prefix))}*`;
    const found = new Set<string>();
    let cursor = '0';
    do {
      const [next, batch] = await this.s.op(this.s.redis.scan(cursor, 'MATCH', match, 'COUNT', SCAN_COUNT));
      cursor = next;
      for (const k of batch) found.add(k);
    } while (cursor !== '0');
    return [...found];
  }

  async incr(key: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    // biome-ignore lint/plugin/no-unbounded-spread: two arguments per counter field, a handful
    return record(await this.s.op(this.s.redis.gwIncr(this.v(key), ...deltaArgs(deltas))));
  }

  async counters(key: string): Promise<Record<string, number>> {
    try {
      const h = await this.s.redis.hgetall(this.v(key));
      const out: Record<string, number> = {};
      for (const f in h) out[f] = Number(h[f]);
      return out;
    } catch (err) {
      if (!(err as Error).message?.startsWith('WRONGTYPE')) throw this.s.fault(err);
      // written with set(): JSON text
      const raw = await this.s.op(this.s.redis.get(this.v(key)));
      return raw === null ? {} : (JSON.parse(raw) as Record<string, number>);
    }
  }

  async dropFields(key: string, fields: readonly string[]): Promise<void> {
    // biome-ignore lint/plugin/no-unbounded-spread: the caller's handful of fields (a budget's old days)
    if (fields.length) await this.s.op(this.s.redis.hdel(this.v(key), ...fields));
  }

  async windowAdmit(key: string, limit: number, windowMs: number, opts: { cost?: number; pending?: number; now?: number } = {}): Promise<WindowVerdict> {
    const full = this.prefix + key;
    const r = (await this.s.op(
      this.s.redis.gwWindowAdmit(
        `${ROOT}w:${full}`,
        `${ROOT}wt:${full}`,
        String(limit),
        String(windowMs),
        String(opts.cost ?? 1),
        String(opts.pending ?? 0),
        opts.now === undefined ? '' : String(opts.now),
        this.s.uid(),
      ),
    )) as [number, string, string];
    return { admitted: r[0] === 1, total: Number(r[1]), retryAfterMs: Number(r[2]) };
  }

  async windowAdd(key: string, amount: number, windowMs: number, now?: number): Promise<void> {
    const full = this.prefix + key;
    await this.s.op(
      this.s.redis.gwWindowAdd(`${ROOT}w:${full}`, `${ROOT}wt:${full}`, String(amount), String(windowMs), now === undefined ? '' : String(now), this.s.uid()),
    );
  }

  async hold(key: string, id: string, amount: number, opts: HoldOptions): Promise<HoldVerdict> {
    const full = this.prefix + key;
    const r = (await this.s.op(
      this.s.redis.gwHold(
        this.v(key),
        // biome-ignore lint/plugin/no-unbounded-spread: three keys
        ...holdKeys(full),
        this.s.holdId(id),
        String(amount),
        opts.field,
        String(opts.limit),
        String(Math.max(1, Math.ceil(opts.ttlMs))),
        this.s.owner,
        `${ROOT}i:`,
        String(LIVENESS_TTL_MS),
        opts.fit === true ? String(fitBound(opts.limit)) : '',
      ),
    )) as [number, string, string];
    return { admitted: r[0] === 1, value: Number(r[1]), held: Number(r[2]) };
  }

  async settle(key: string, id: string, deltas: Record<string, number>): Promise<Record<string, number>> {
    const full = this.prefix + key;
    const hold = [...holdKeys(full), this.s.holdId(id)] as const;
    try {
      // biome-ignore lint/plugin/no-unbounded-spread: a hold's 4 keys, two arguments per counter field
      return record(await this.s.op(this.s.redis.gwSettle(this.v(key), ...hold, ...deltaArgs(deltas))));
    } catch (err) {
      this.s.orphan(hold, err);
      throw err;
    }
  }

  async release(key: string, id: string): Promise<void> {
    const full = this.prefix + key;
    const hold = [...holdKeys(full), this.s.holdId(id)] as const;
    try {
      // biome-ignore lint/plugin/no-unbounded-spread: a hold's 4 keys
      await this.s.op(this.s.redis.gwRelease(...hold));
    } catch (err) {
      this.s.orphan(hold, err);
      throw err;
    }
  }

  async held(key: string): Promise<number> {
    const full = this.prefix + key;
    // biome-ignore lint/plugin/no-unbounded-spread: three keys
    return Number(await this.s.op(this.s.redis.gwHeld(...holdKeys(full), `${ROOT}i:`)));
  }

  async bucketIncr(key: string, at: number, series: string, deltas: Record<string, number>, opts: { bucketMs: number; retentionMs: number }): Promise<void> {
    const start = at - (at % opts.bucketMs);
    await this.s.op(
      // biome-ignore lint/plugin/no-unbounded-spread: two arguments per counter field, a handful
      this.s.redis.gwBucketIncr(`${ROOT}b:${this.prefix}${key}@${start}`, String(start + opts.bucketMs + opts.retentionMs), series, ...deltaArgs(deltas)),
    );
  }

  async *buckets(key: string, from: number, to: number, bucketMs: number): AsyncIterable<BucketRow> {
    const first = Math.ceil(from / bucketMs) * bucketMs;
    if (!(to > first)) return;
    if ((to - first) / bucketMs > MAX_BUCKETS)
      throw new Error(`buckets: ${key} from ${from} to ${to} spans more than ${MAX_BUCKETS} buckets of ${bucketMs} ms`);
    const base = `${ROOT}b:${this.prefix}${key}@`;
    const starts: number[] = [];
    for (let b = first; b < to; b += bucketMs) starts.push(b);
    for (let i = 0; i < starts.length; i += READ_BATCH) {
      const batch = starts.slice(i, i + READ_BATCH);
      // biome-ignore lint/plugin/no-unbounded-spread: READ_BATCH keys at most
      const rows = (await this.s.op(this.s.redis.gwReadMany(batch.length, ...batch.map((b) => base + b)))) as Array<[string, unknown?]>;
      for (let j = 0; j < batch.length; j++) {
        const [kind, payload] = rows[j]!;
        if (kind !== 'h') continue;
        const flat = payload as string[];
        const bySeries = new Map<string, Record<string, number>>();
        for (let f = 0; f < flat.length; f += 2) {
          const name = flat[f]!;
          const cut = name.indexOf('\u0000');
          const series = name.slice(cut + 1);
          let rec = bySeries.get(series);
          if (!rec) bySeries.set(series, (rec = {}));
          rec[name.slice(0, cut)] = Number(flat[f + 1]);
        }
        for (const series of [...bySeries.keys()].sort(byteOrder)) yield { start: batch[j]!, series, counters: bySeries.get(series)! };
      }
    }
  }

  async ringPush(key: string, value: string, maxLen: number): Promise<number> {
    const full = this.prefix + key;
    return Number(await this.s.op(this.s.redis.gwRingPush(`${ROOT}r:${full}`, `${ROOT}rs:${full}`, value, String(maxLen))));
  }

  async *ringRead(key: string, opts: { limit?: number; before?: number } = {}): AsyncIterable<[number, string]> {
    const ring = `${ROOT}r:${this.prefix}${key}`;
    let left = opts.limit ?? Infinity;
    let max = opts.before === undefined ? '+inf' : `(${opts.before}`;
    while (left > 0) {
      const page = Math.min(left, RING_PAGE);
      const members = await this.s.op(this.s.redis.zrevrangebyscore(ring, max, '-inf', 'LIMIT', 0, page));
      for (const m of members) {
        const cut = m.indexOf(':');
        const seq = Number(m.slice(0, cut));
        yield [seq, m.slice(cut + 1)];
        max = `(${seq}`;
      }
      left -= members.length;
      if (members.length < page) return;
    }
  }

  /** A Redis lock (SET NX PX, token-checked release) renewed while `fn` runs; local callers queue first, one polls Redis. */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const lock = `${ROOT}l:${this.prefix}${key}`;
    return this.s.locks.run(lock, async () => {
      const token = this.s.uid();
      const started = Date.now();
      for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
        if ((await this.s.op(this.s.redis.set(lock, token, 'PX', LOCK_TTL_MS, 'NX'))) === 'OK') break;
        if (Date.now() - started > LOCK_WAIT_MS) {
          throw STORE_UNAVAILABLE(`Redis at ${this.s.url}: lock '${this.prefix}${key}' stayed taken for ${LOCK_WAIT_MS / 1000} s`, {
            headers: { 'retry-after': '1' },
          });
        }
        await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
      }
      const renew = setInterval(() => {
        this.s.redis.gwRenew(lock, token, String(LOCK_TTL_MS)).catch(() => undefined);
      }, LOCK_RENEW_MS);
      renew.unref();
      try {
        return await fn();
      } finally {
        clearInterval(renew);
        await this.s.redis.gwUnlock(lock, token).catch(() => undefined); // else it lapses in LOCK_TTL_MS
      }
    });
  }

  async close(): Promise<void> {
    if (!this.root) return;
    const { redis } = this.s;
    this.s.closing = true;
    if (this.s.heartbeat) clearInterval(this.s.heartbeat);
    // our holds end with us: other instances drop them at their next look
    await redis.del(this.s.liveKey).catch(() => undefined);
    await Promise.race([redis.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
    redis.disconnect();
  }
}

/**
 * Connects to Redis at `url` for START_TIMEOUT_MS (a wrong password or database fails at once).
 * @throws UserError `cannot open the store [store] url = "<url without password>": <why>`
 */
export async function openRedisStore(url: string, log?: Logger): Promise<Store> {
  const safe = redactUrl(url);
  const redis = new Redis(url, {
    lazyConnect: true,
    connectionName: 'gw',
    // fail fast instead of piling commands up while Redis is away (fail closed: 503)
    enableOfflineQueue: false,
    commandTimeout: OP_TIMEOUT_MS,
    connectTimeout: OP_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    // a command whose answer was lost is reported as failed, never silently sent twice
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times: number) => Math.min(100 * times, RECONNECT_MAX_MS),
    enableAutoPipelining: true,
  }) as Scripted;
  for (const [name, def] of Object.entries(SCRIPTS)) redis.defineCommand(name, def);
  redis.defineCommand('gwReadMany', { lua: READ_MANY });

  let last: Error | undefined;
  let fatal: ((e: Error) => void) | undefined;
  redis.on('error', (err: Error) => {
    last = err;
    if (fatal && err.name === 'ReplyError') fatal(err); // wrong password, no such database
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(last ?? new Error(`no answer within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      fatal = (e) => {
        clearTimeout(t);
        reject(e);
      };
      redis.once('ready', () => {
        clearTimeout(t);
        resolve();
      });
      redis.connect().catch(() => undefined);
    });
  } catch (err) {
    redis.disconnect();
    const why = (err as Error).message || (err as { code?: string }).code || String(err);
    throw new UserError(`cannot open the store [store] url = "${safe}": ${why}`, { cause: err });
  } finally {
    fatal = undefined;
  }

  const shared = new Shared(redis, safe);
  await shared.op(shared.beat());
  shared.heartbeat = setInterval(() => {
    shared.beat().catch(() => undefined);
  }, HEARTBEAT_MS);
  shared.heartbeat.unref();

  // one line per outage, not one per reconnection attempt
  let lost = false;
  redis.on('close', () => {
    if (lost || shared.closing) return;
    lost = true;
    log?.error({ store: safe }, 'lost the store (Redis): requests that need it get 503 store_unavailable until it returns');
  });
  redis.on('ready', () => {
    if (!lost) return;
    lost = false;
    log?.warn({ store: safe }, 'the store (Redis) is back');
    shared.beat().catch(() => undefined);
  });
  return new RedisView(shared, '', true);
}
