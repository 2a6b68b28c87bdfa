/**
 * The embedded store: LevelDB under `data_dir`, owned by one process, so in-memory copies of
 * counters, windows and holds are authoritative (idle ones dropped) and a read-check-write needs
 * no await. A write is in LevelDB's log when it resolves (survives kill -9), not fsynced: an
 * fsync per request cost more than all else gw does for it. One file per kind of data.
 */
import { UserError, type Store } from 'gw/plugin';
import { Level } from 'level';
import { LevelState } from './state.ts';
import { SWEEP_MS } from './sweep.ts';
import { LevelView } from './view.ts';
import type { Db } from './writer.ts';

/** Counters and windows untouched this long (to twice as long) leave memory; above the longest window (60 s). */
const IDLE_MS = 2 * 60_000;

/** Opens (creates) the LevelDB store at `dir`, sweeping every SWEEP_MS. @throws UserError when another process holds it. */
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
