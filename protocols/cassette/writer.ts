/**
 * Appending entries to a cassette without blocking a request: `append` queues a line and
 * returns at once; one write at a time drains the queue (every queued line in one `write`, the
 * file opened for appending, so several processes may share it line by line). The queue is
 * bounded: past `maxQueueBytes` (a disk that stalls) new lines are dropped and counted, never
 * waited for. A crash loses what was queued and not yet written — the exchange in flight; a
 * line cut by one is ended with a newline when the file is opened again, and readers skip it.
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Default bound on the queue: 64 MiB of lines waiting for the disk. */
export const DEFAULT_MAX_QUEUE_BYTES = 67_108_864;

export class CassetteWriter {
  readonly path: string;
  readonly #file: FileHandle;
  readonly #maxQueueBytes: number;
  readonly #onError: (err: Error) => void;
  #queue: string[] = [];
  #queuedBytes = 0;
  #draining: Promise<void> | undefined;
  #closed = false;
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
   * @throws the file system's error (a folder that cannot be created, no permission).
   */
  static async open(path: string, opts: { maxQueueBytes?: number; onError?: (err: Error) => void } = {}): Promise<CassetteWriter> {
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
    return new CassetteWriter(path, file, opts.maxQueueBytes ?? DEFAULT_MAX_QUEUE_BYTES, opts.onError ?? (() => undefined));
  }

  /** Queues one line (without its newline); false when it was dropped (queue full, writer closed). Never waits. */
  append(line: string): boolean {
    if (this.#closed || this.#queuedBytes + line.length > this.#maxQueueBytes) {
      this.dropped++;
      return false;
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
