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

/** Warm-up of a soak of `totalSeconds`: the first 2 minutes of 10, scaled down for shorter runs (a fifth), s. */
export function warmupSeconds(totalSeconds: number): number {
  return Math.min(120, totalSeconds / 5);
}

/** RSS after the warm-up: the reference sample, the last, the largest, and last / reference - 1. */
export interface Growth {
  /** The first sample at or after the warm-up. */
  ref: MemorySample;
  last: MemorySample;
  maxRssMiB: number;
  /** Relative growth, 0.1 = 10 %. */
  growth: number;
}

/**
 * Growth of RSS from the end of the warm-up (`warmupS`, s) to the last sample; undefined when
 * no sample falls after the warm-up (the run was too short to tell).
 */
export function rssGrowth(samples: MemorySample[], warmupS: number): Growth | undefined {
  const i = samples.findIndex((s) => s.t >= warmupS);
  if (i === -1 || i === samples.length - 1) return undefined;
  const ref = samples[i]!;
  const last = samples[samples.length - 1]!;
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
