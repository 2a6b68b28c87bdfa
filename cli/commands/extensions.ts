/**
 * Commands backed by extensions' admin routes: `gw usage` (GET /v1/usage), `gw budget`
 * (GET /v1/budget), `gw cache clear` (DELETE /v1/cache). A 404 means the extension is
 * not enabled in the config.
 */
import { adminClient } from '../client/http.ts';
import { printJson, printList, type Column } from '../client/output.ts';

const notEnabled = (ext: string) => `the ${ext} extension is not enabled: add [extensions.${ext}] to the gateway config`;

/** Columns from the entries' own fields, in first-seen order; numbers right-aligned. */
function columnsOf(rows: ReadonlyArray<Record<string, unknown>>): Array<Column<Record<string, unknown>>> {
  const fields: string[] = [];
  for (const r of rows) for (const f of Object.keys(r)) if (!fields.includes(f)) fields.push(f);
  return fields.map((f) => ({ header: f.toUpperCase(), value: (r) => r[f], right: rows.some((r) => typeof r[f] === 'number') }));
}

async function entries(path: string, ext: string, o: { json?: boolean }): Promise<void> {
  const rows = await adminClient().call<Array<Record<string, unknown>>>('GET', path, { notFound: notEnabled(ext) });
  const list = Array.isArray(rows) ? rows : [];
  printList(o.json === true, rows, columnsOf(list), list);
}

export function usage(o: { json?: boolean }): Promise<void> {
  return entries('/v1/usage', 'usage', o);
}

export function budget(o: { json?: boolean; history?: boolean }): Promise<void> {
  return entries(o.history ? '/v1/budget?history=true' : '/v1/budget', 'budget', o);
}

export async function cacheClear(o: { json?: boolean }): Promise<void> {
  await adminClient().call('DELETE', '/v1/cache', { notFound: notEnabled('cache') });
  if (o.json) return printJson({ cleared: true });
  process.stdout.write('cache cleared\n');
}
