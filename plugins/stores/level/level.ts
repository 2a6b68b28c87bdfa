/**
 * The embedded store: LevelDB (`level`) under `data_dir`. One process owns the database
 * (LevelDB takes a file lock), so the in-memory copies of counters, windows and holds are
 * authoritative once loaded, and atomicity is plain single-threaded JS: a read-check-write
 * on a loaded record runs without an await (no lock, no disk read), and a per-key lock
 * only guards the first load of a record. Those copies are kept while in use: a counter,
 * window or hold nobody touched for IDLE_MS to 2 x IDLE_MS is dropped from memory (the
 * disk has it), so memory follows the live keys, not every key ever seen.
 * Every write is in LevelDB's write-ahead log, in the operating system's hands, when its
 * promise resolves: it survives a process crash (kill -9) and a restart. Writes are not
 * fsynced one by one (`sync: false`): an fsync per request cost more than everything
 * else gw does for it, and only a machine crash or power loss could drop the last
 * moments of writes (for that, run the Redis store with `appendfsync always`).
 *
 * One file per kind of data: values.ts (values, TTLs; filter.ts its key filters),
 * counters.ts, holds.ts, windows.ts, buckets.ts, rings.ts; writer.ts batches every write;
 * sweep.ts deletes what expired; layout.ts says where each kind lives on disk; state.ts
 * ties them together and view.ts is the Store every plugin gets.
 */
import { UserError, type Store } from 'gw/plugin';
import { Level } from 'level';
import { LevelState } from './state.ts';
import { SWEEP_MS } from './sweep.ts';
import { LevelView } from './view.ts';
import type { Db } from './writer.ts';

/** Counters and windows untouched this long (to twice as long) leave memory; above the longest window (60 s). */
const IDLE_MS = 2 * 60_000;

/**
 * Opens (creating if needed) the LevelDB store at `dir`, deletes expired TTL values, and
 * keeps deleting them every minute (SWEEP_MS).
 * @throws UserError when another process holds the database (LevelDB's LOCK file).
 */
export async function openLevelStore(dir: string): Promise<Store> {
  const db = new Level<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' }) as Db;
  try {
    await db.open();
  } catch (err) {
    const cause = (err as { cause?: Error }).cause;
    throw new UserError(`cannot open the store at ${dir}: ${cause?.message ?? (err as Error).message}`, { cause: err });
  }
  const state = new LevelState(db);
  await state.sweeper.load();
  const sweeper = setInterval(() => {
    state.sweep().catch(() => undefined);
  }, SWEEP_MS);
  const idler = setInterval(() => state.evictIdle(), IDLE_MS);
  sweeper.unref();
  idler.unref();
  state.timers.push(sweeper, idler);
  return new LevelView(state, '', true);
}
