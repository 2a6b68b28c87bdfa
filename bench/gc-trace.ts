/**
 * V8's `--trace-gc` lines, summed: how many ms a gw process spent in the young generation's
 * collections (scavenges) and in the old generation's (mark-compact, its incremental marking
 * steps included), so a setup's CPU per request can be split into collection and the rest.
 *
 * A line looks like (Node 24):
 *   [7626:0x7f40…]  39486 ms: Scavenge 51.7 (81.9) -> 47.1 (81.9) MB, pooled: 6 MB, 3.90 / 0.00 ms  (average mu = 0.984, …) task;
 *   [7626:0x7f40…]  40112 ms: Mark-Compact 60.1 (85.2) -> 45.3 (80.1) MB, pooled: 0 MB, 5.12 / 0.00 ms  (+ 12.3 ms in 40 steps since start of marking, …)
 * The first figure after the sizes is the pause on the main thread; a mark-compact's
 * `+ N ms in M steps` is the incremental marking that ran between tasks before it.
 */
import type { Readable } from 'node:stream';

/** What one `--trace-gc` line says; undefined for any other line. */
export interface GcEvent {
  kind: 'scavenge' | 'mark-compact' | 'other';
  /** Main-thread ms: the pause, plus a mark-compact's incremental steps. */
  ms: number;
}

const LINE = /\d ms: ([A-Za-z-]+(?: \([^)]*\))?) .*?MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in \d+ steps)?/;

/** Parses one line of `--trace-gc` output. */
export function parseGcLine(line: string): GcEvent | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  const name = m[1]!;
  const pause = Number(m[2]);
  if (name.startsWith('Scavenge')) return { kind: 'scavenge', ms: pause };
  if (name.startsWith('Mark-Compact')) return { kind: 'mark-compact', ms: pause + (m[3] === undefined ? 0 : Number(m[3])) };
  return { kind: 'other', ms: pause };
}

/** Sums the collections a child reports on `stdout` (started with `--trace-gc`). */
export class GcMeter {
  scavengeMs = 0;
  scavenges = 0;
  markCompactMs = 0;
  markCompacts = 0;
  otherMs = 0;
  private rest = '';

  constructor(stdout: Readable) {
    stdout.on('data', (d: Buffer) => {
      const lines = (this.rest + d).split('\n');
      this.rest = lines.pop() ?? '';
      for (const line of lines) this.add(line);
    });
  }

  /** Total ms so far (the caller subtracts a reading from before its window). */
  get totalMs(): number {
    return this.scavengeMs + this.markCompactMs + this.otherMs;
  }

  private add(line: string): void {
    const e = parseGcLine(line);
    if (e === undefined) return;
    if (e.kind === 'scavenge') {
      this.scavengeMs += e.ms;
      this.scavenges++;
    } else if (e.kind === 'mark-compact') {
      this.markCompactMs += e.ms;
      this.markCompacts++;
    } else this.otherMs += e.ms;
  }
}
