/**
 * `gw providers list|create|delete`: the admin API's /v1/admin/providers.
 */
import { adminClient } from '../client/http.ts';
import { printJson, printList, type Column } from '../client/output.ts';

/** A provider as GET /v1/admin/providers lists it (api_key masked by the server). */
interface ProviderRow {
  name: string;
  kind: string;
  source: string;
  base_url: string | null;
  models: string[];
  api_key: string;
  circuit: string;
  inflight: number;
}

const COLUMNS: ReadonlyArray<Column<ProviderRow>> = [
  { header: 'NAME', value: (p) => p.name },
  { header: 'KIND', value: (p) => p.kind },
  { header: 'SOURCE', value: (p) => p.source },
  { header: 'API_KEY', value: (p) => p.api_key },
  { header: 'BASE_URL', value: (p) => p.base_url },
  { header: 'CIRCUIT', value: (p) => p.circuit },
  { header: 'MODELS', value: (p) => p.models },
];

export async function list(o: { json?: boolean }): Promise<void> {
  const res = await adminClient().call<{ data: ProviderRow[] }>('GET', '/v1/admin/providers');
  printList(o.json === true, res.data, COLUMNS, res.data);
}

export async function create(name: string, o: { kind?: string; apiKey: string; baseUrl?: string; models?: string[]; json?: boolean }): Promise<void> {
  const body: Record<string, unknown> = { name, kind: o.kind ?? name, api_key: o.apiKey };
  if (o.baseUrl !== undefined) body.base_url = o.baseUrl;
  if (o.models?.length) body.models = o.models;
  const p = await adminClient().call<ProviderRow>('POST', '/v1/admin/providers', { body });
  if (o.json) return printJson(p);
  process.stdout.write(`created provider ${p.name} (${p.kind}) serving ${p.models.length} model${p.models.length === 1 ? '' : 's'}: ${p.models.join(', ')}\n`);
}

export async function remove(name: string, o: { json?: boolean }): Promise<void> {
  await adminClient().call('DELETE', `/v1/admin/providers/${encodeURIComponent(name)}`);
  if (o.json) return printJson({ name, deleted: true });
  process.stdout.write(`deleted provider ${name}\n`);
}
