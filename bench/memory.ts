/**
 * Pure helpers of the soak (bench/soak.ts): warm-up length, RSS growth after it, and a gauge
 * out of gw's Prometheus text.
 */

/** One soak sample. */
export interface MemorySample {
  /** Seconds since the load started. */
  t: number;
  rssMiB: number;
  /** V8 heap used, MiB, when /metrics answered. */
  heapMiB?: number;
  /** gw's anonymous and file-backed resident memory, MiB (/proc/<pid>/status). */
  anonMiB?: number;
  fileMiB?: number;
  /** The LevelDB store's files, MiB. */
  storeMiB?: number;
}

/**
 * Warm-up of a soak of `totalSeconds` whose cache keeps entries `cacheTtlSeconds`, s: the
 * first 2 minutes of 10 (a fifth of shorter runs), and at least two cache TTLs, so the cache
 * is as full as it gets (entries expire as fast as new ones come) before growth is measured;
 * at most half the run.
 */
export function warmupSeconds(totalSeconds: number, cacheTtlSeconds = 0): number {
  return Math.min(Math.max(Math.min(120, totalSeconds / 5), 2 * cacheTtlSeconds), totalSeconds / 2);
}

/** Means over a window of samples, MiB; `from`, `to`: s since the load started. */
export interface WindowMeans {
  from: number;
  to: number;
  rssMiB: number;
  anonMiB?: number;
  fileMiB?: number;
  storeMiB?: number;
}

/**
 * RSS after the warm-up, each end taken as the mean over a window (MiB): the first window
 * after the warm-up, and the last window of the run.
 */
export interface Growth {
  /** The reference window: [from, to). */
  ref: WindowMeans;
  /** The last window: [from, to]. */
  last: WindowMeans;
  maxRssMiB: number;
  /** Relative growth of the means, 0.1 = 10 %. */
  growth: number;
}

/** The mean of `pick` over the samples with `from` <= t < `to` (`inclusiveEnd`: t <= `to`), or undefined for none. */
export function mean(
  samples: MemorySample[],
  from: number,
  to: number,
  pick: (s: MemorySample) => number | undefined,
  inclusiveEnd = false,
): number | undefined {
  let sum = 0;
  let n = 0;
  for (const s of samples) {
    if (s.t < from || (inclusiveEnd ? s.t > to : s.t >= to)) continue;
    const v = pick(s);
    if (v === undefined) continue;
    sum += v;
    n++;
  }
  return n ? sum / n : undefined;
}

/**
 * Growth of RSS after the warm-up (`warmupS`, s): the mean over the `windowS` seconds after
 * it against the mean over the last `windowS` seconds of the samples. Means over a window as
 * long as the store's periodic work (the sweep and compaction, every 60 s) weigh a sample
 * taken in the middle of a compaction with the rest of its minute, so the verdict does not
 * depend on where the samples fall. Undefined when the run has no whole window after the
 * warm-up (too short to tell).
 */
export function rssGrowth(samples: MemorySample[], warmupS: number, windowS = 60): Growth | undefined {
  const end = samples.length ? samples[samples.length - 1]!.t : 0;
  if (end < warmupS + windowS) return undefined;
  const at = (from: number, to: number, inclusiveEnd: boolean): WindowMeans => {
    const m = (pick: (s: MemorySample) => number | undefined) => mean(samples, from, to, pick, inclusiveEnd);
    return { from, to, rssMiB: m((s) => s.rssMiB)!, anonMiB: m((s) => s.anonMiB), fileMiB: m((s) => s.fileMiB), storeMiB: m((s) => s.storeMiB) };
  };
  const ref = at(warmupS, warmupS + windowS, false);
  const last = at(end - windowS, end, true);
  if (ref.rssMiB === undefined || last.rssMiB === undefined) return undefined;
  const maxRssMiB = Math.max(...samples.map((s) => s.rssMiB));
  return { ref, last, maxRssMiB, growth: last.rssMiB / ref.rssMiB - 1 };
}

/**
 * The value of an unlabelled sample `name` in Prometheus text exposition, or undefined.
 * Labelled series of the same name are skipped.
 */
export function promValue(text: string, name: string): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ') continue;
    const v = Number(rest.trim().split(' ')[0]);
    return Number.isFinite(v) ? v : undefined;
  }
  return undefined;
}
