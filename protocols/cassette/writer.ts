/**
 * Appending entries to a cassette without making a request wait for the disk. A line is
 * written at once (one write(2) to the page cache: docs/benchmarks.md), before the answer's
 * last byte, so a crash loses only the exchange in flight. After a write slower than `slowMs`
 * lines go through a bounded background queue for `backgroundMs`; past `maxQueueBytes` they
 * are dropped and counted, never waited for.
 */
import { writeSync } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Default bound on the queue: 64 MiB of lines waiting for the disk. */
export const DEFAULT_MAX_QUEUE_BYTES = 67_108_864;
/** A write slower than this (a stalled disk; far above a preempted one on a busy machine) sends the writer to the background. */
const SLOW_MS = 50;
/** How long it stays there before trying a direct write again. */
const BACKGROUND_MS = 10_000;

export class CassetteWriter {
  readonly path: string;
  readonly #file: FileHandle;
  readonly #maxQueueBytes: number;
  readonly #onError: (err: Error) => void;
  #queue: string[] = [];
  #queuedBytes = 0;
  #draining: Promise<void> | undefined;
  #closed = false;
  /** Until when lines go through the queue (after a slow write). */
  #backgroundUntil = 0;
  /** Lines written so far. */
  written = 0;
  /** Lines dropped: the queue was full, or the write failed. */
  dropped = 0;

  private constructor(path: string, file: FileHandle, maxQueueBytes: number, onError: (err: Error) => void) {
    this.path = path;
    this.#file = file;
    this.#maxQueueBytes = maxQueueBytes;
    this.#onError = onError;
  }

  /**
   * Opens `path` for appending (its folder created), ending a line a crash cut short.
   * `background`: every line through the queue (never a direct write).
   * @throws the file system's error (a folder that cannot be created, no permission).
   */
  static async open(path: string, opts: { maxQueueBytes?: number; onError?: (err: Error) => void; background?: boolean } = {}): Promise<CassetteWriter> {
    await mkdir(dirname(path), { recursive: true });
    const file = await open(path, 'a+');
    try {
      const { size } = await file.stat();
      if (size > 0) {
        const last = Buffer.alloc(1);
        await file.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) await file.write('\n');
      }
    } catch (err) {
      await file.close();
      throw err;
    }
    const writer = new CassetteWriter(path, file, opts.maxQueueBytes ?? DEFAULT_MAX_QUEUE_BYTES, opts.onError ?? (() => undefined));
    if (opts.background) writer.#backgroundUntil = Number.POSITIVE_INFINITY;
    return writer;
  }

  /** Writes or queues one line (without its newline); false when it was dropped (queue full, writer closed). Never waits for the disk. */
  append(line: string): boolean {
    if (this.#closed || this.#queuedBytes + line.length > this.#maxQueueBytes) {
      this.dropped++;
      return false;
    }
    if (this.#draining === undefined && performance.now() >= this.#backgroundUntil) {
      const t0 = performance.now();
      try {
        writeSync(this.#file.fd, `${line}\n`);
        this.written++;
      } catch (err) {
        this.dropped++;
        this.#onError(err as Error);
      }
      const done = performance.now();
      if (done - t0 > SLOW_MS) this.#backgroundUntil = done + BACKGROUND_MS;
      return true;
    }
    this.#queue.push(line);
    this.#queuedBytes += line.length + 1;
    this.#draining ??= this.#drain();
    return true;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const lines = this.#queue;
      this.#queue = [];
      this.#queuedBytes = 0;
      try {
        await this.#file.write(`${lines.join('\n')}\n`);
        this.written += lines.length;
      } catch (err) {
        this.dropped += lines.length;
        this.#onError(err as Error);
      }
    }
    this.#draining = undefined;
  }

  /** Resolves once every line queued so far is written. */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /** Writes what is queued, then closes the file; later appends are dropped. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    await this.#file.close();
  }
}
