/**
 * The last lines a stdio server wrote to stderr (50 by default), kept across its restarts: what
 * an operator reads when it crashed (`GET /v1/admin/mcp-servers/<name>`, the console). Each
 * line is cut to MAX_LINE characters; a line still being written is held until its newline.
 */
import type { Stream } from 'node:stream';

const MAX_LINE = 1000;

export class LineRing {
  private readonly max: number;
  /** A ring: the oldest kept line is at `start` once it is full. */
  private readonly lines: string[] = [];
  private start = 0;
  private partial = '';

  constructor(max = 50) {
    this.max = max;
  }

  /** Reads `stream` (a child's stderr) into the ring until it ends. */
  follow(stream: Stream): void {
    stream.on('data', (chunk: Buffer | string) => this.write(String(chunk)));
    stream.on('end', () => this.flush());
  }

  /** Adds text: complete lines go in, the rest waits for its newline. */
  write(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop()!.slice(0, MAX_LINE);
    for (const line of parts) this.push(line);
  }

  /** Adds a line of gw's own (a restart, an exit code). */
  note(line: string): void {
    this.flush();
    this.push(line);
  }

  /** The newest line the child wrote (gw's own notes skipped), if any. */
  last(): string | undefined {
    const lines = this.read();
    for (let i = lines.length - 1; i >= 0; i--) if (!lines[i]!.startsWith('[gw] ')) return lines[i];
    return undefined;
  }

  /** The kept lines, oldest first. */
  read(): string[] {
    const out = [...this.lines.slice(this.start), ...this.lines.slice(0, this.start)];
    if (this.partial) out.push(this.partial);
    return out;
  }

  private flush(): void {
    if (this.partial) this.push(this.partial);
    this.partial = '';
  }

  private push(line: string): void {
    const l = line.endsWith('\r') ? line.slice(0, -1) : line;
    const kept = l.length > MAX_LINE ? `${l.slice(0, MAX_LINE)}…` : l;
    if (this.lines.length < this.max) this.lines.push(kept);
    else {
      this.lines[this.start] = kept;
      this.start = (this.start + 1) % this.max;
    }
  }
}
