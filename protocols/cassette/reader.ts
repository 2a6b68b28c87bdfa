/**
 * Reading cassettes: a `.jsonl` file, or every `*.jsonl` below a folder, in path order. A last
 * line a crash cut short is ignored; other bad lines are skipped and reported, never hiding the rest.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type CassetteEntry, entrySchema } from './entry.ts';

/** An entry and where it is. */
export interface CassetteLine {
  readonly entry: CassetteEntry;
  readonly file: string;
  /** 1-based line number. */
  readonly line: number;
}

/** A line that is not an entry. */
export interface SkippedLine {
  file: string;
  line: number;
  reason: string;
}

export interface Cassette {
  /** The path as given. */
  path: string;
  /** The files read, in order. */
  files: string[];
  entries: CassetteLine[];
  /** Lines skipped (not the cut last line). */
  skipped: SkippedLine[];
  /** Files whose last line was cut (no newline) and ignored. */
  cut: string[];
}

/**
 * Reads a cassette. A path that does not exist reads as an empty cassette when `missingOk`.
 * @throws Error naming the path when it cannot be read (or does not exist, unless `missingOk`).
 */
export async function readCassette(path: string, opts: { missingOk?: boolean } = {}): Promise<Cassette> {
  const out: Cassette = { path, files: [], entries: [], skipped: [], cut: [] };
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && opts.missingOk) return out;
    throw new Error(`cannot read cassette ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  out.files = isDir ? await jsonlFiles(path) : [path];
  for (const file of out.files) readLines(file, await readFile(file, 'utf8'), out);
  return out;
}

/** Parses one file's text into `into`. */
export function readLines(file: string, text: string, into: Cassette): void {
  const lines = text.split('\n');
  // the text after the last newline: '' when the file ends with one, else a line a crash cut
  const tail = lines.pop() ?? '';
  if (tail.trim() !== '') into.cut.push(file);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      into.skipped.push({ file, line, reason: 'not JSON' });
      continue;
    }
    const parsed = entrySchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      into.skipped.push({ file, line, reason: `${issue.path.join('.') || 'entry'}: ${issue.message}` });
      continue;
    }
    const entry = parsed.data as unknown as CassetteEntry;
    if (entry.response.status === undefined && entry.response.error === undefined) {
      into.skipped.push({ file, line, reason: 'response: expected a status or an error' });
      continue;
    }
    into.entries.push({ entry, file, line });
  }
}

async function jsonlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) for (const f of await jsonlFiles(p)) out.push(f);
    else if (d.isFile() && d.name.endsWith('.jsonl')) out.push(p);
  }
  return out.sort();
}
