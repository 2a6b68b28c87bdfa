/**
 * How management commands print: an aligned table, one row per item, or JSON with `--json`.
 */

/** One column: the row field it shows, its header, and right alignment for numbers. */
export interface Column<R> {
  header: string;
  value: (row: R) => unknown;
  right?: boolean;
}

/** Lines of an aligned table (header first); cells are single-line strings, `-` for empty. */
export function formatTable<R>(columns: ReadonlyArray<Column<R>>, rows: readonly R[]): string[] {
  const cells = rows.map((r) => columns.map((c) => cell(c.value(r))));
  const widths = columns.map((c) => c.header.length);
  for (const row of cells) for (let i = 0; i < row.length; i++) if (row[i]!.length > widths[i]!) widths[i] = row[i]!.length;
  const line = (vals: string[]) =>
    vals
      .map((v, i) => (columns[i]!.right ? v.padStart(widths[i]!) : i === vals.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)];
}

/** Prints a table, or `json` as JSON when `asJson`. */
export function printList<R>(asJson: boolean, json: unknown, columns: ReadonlyArray<Column<R>>, rows: readonly R[]): void {
  if (asJson) {
    printJson(json);
    return;
  }
  process.stdout.write(`${formatTable(columns, rows).join('\n')}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A line for the person at the terminal (stderr, so stdout stays parseable). */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

function cell(v: unknown): string {
  if (v === undefined || v === null || v === '') return '-';
  if (Array.isArray(v)) return v.length ? v.join(',') : '-';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 1e6) / 1e6);
  return String(v).replace(/\s+/g, ' ');
}
