/**
 * `gw keys list|create|revoke`: the admin API's /v1/admin/keys.
 */
import { adminClient } from '../client/http.ts';
import { note, printJson, printList, type Column } from '../client/output.ts';

interface KeyRow {
  name: string;
  source: string;
  key: string;
}

const COLUMNS: ReadonlyArray<Column<KeyRow>> = [
  { header: 'NAME', value: (k) => k.name },
  { header: 'SOURCE', value: (k) => k.source },
  { header: 'KEY', value: (k) => k.key },
];

export async function list(o: { json?: boolean }): Promise<void> {
  const res = await adminClient().call<{ data: KeyRow[] }>('GET', '/v1/admin/keys');
  printList(o.json === true, res.data, COLUMNS, res.data);
}

/** Prints the new key alone on stdout (so `KEY=$(gw keys create ci)` works); the note goes to stderr. */
export async function create(name: string, o: { json?: boolean }): Promise<void> {
  const k = await adminClient().call<KeyRow>('POST', '/v1/admin/keys', { body: { name } });
  if (o.json) return printJson(k);
  process.stdout.write(`${k.key}\n`);
  note(`created key '${k.name}': store it now, gw keeps only its hash and cannot show it again`);
}

export async function revoke(name: string, o: { json?: boolean }): Promise<void> {
  await adminClient().call('DELETE', `/v1/admin/keys/${encodeURIComponent(name)}`);
  if (o.json) return printJson({ name, revoked: true });
  process.stdout.write(`revoked key ${name}\n`);
}
