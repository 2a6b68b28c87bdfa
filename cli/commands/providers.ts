/**
 * `gw providers list|create|delete`: the admin API's /v1/admin/providers. The list shows
 * this instance's last 5 minutes per provider (attempts, error rate, latency p50/p95 and
 * TTFB p95 in ms); --json has the 60-minute window and the per-minute history too.
 */
import { adminClient } from '../client/http.ts';
import { note, printJson, printList, type Column } from '../client/output.ts';

/** A provider as GET /v1/admin/providers lists it (api_key masked by the server). */
interface ProviderRow {
  name: string;
  kind: string | null;
  /** A stored provider gw cannot load, and why. */
  unreadable?: true;
  reason?: string;
  source: string;
  base_url: string | null;
  models: string[];
  api_key: string;
  circuit: string;
  inflight: number;
  health?: { last_5m: Window };
}

/** A provider's last 5 minutes, as the listing reports them. */
interface Window {
  requests: number;
  error_rate: number;
  latency_ms: { p50: number; p95: number } | null;
  ttfb_ms: { p50: number; p95: number } | null;
}

const w5 = (p: ProviderRow): Window | undefined => p.health?.last_5m;
const pct = (x: number | undefined) => (x === undefined ? undefined : `${Math.round(x * 1000) / 10}%`);

const COLUMNS: ReadonlyArray<Column<ProviderRow>> = [
  { header: 'NAME', value: (p) => p.name },
  { header: 'KIND', value: (p) => p.kind },
  { header: 'SOURCE', value: (p) => p.source },
  { header: 'API_KEY', value: (p) => p.api_key },
  { header: 'BASE_URL', value: (p) => p.base_url },
  { header: 'CIRCUIT', value: (p) => (p.unreadable ? 'unreadable' : p.circuit) },
  { header: 'REQ_5M', value: (p) => w5(p)?.requests, right: true },
  { header: 'ERR_5M', value: (p) => (w5(p)?.requests ? pct(w5(p)!.error_rate) : undefined), right: true },
  { header: 'P50_MS', value: (p) => w5(p)?.latency_ms?.p50, right: true },
  { header: 'P95_MS', value: (p) => w5(p)?.latency_ms?.p95, right: true },
  { header: 'TTFB_P95', value: (p) => w5(p)?.ttfb_ms?.p95, right: true },
  { header: 'MODELS', value: (p) => p.models },
];

export async function list(o: { json?: boolean }): Promise<void> {
  const res = await adminClient().call<{ data: ProviderRow[] }>('GET', '/v1/admin/providers');
  printList(o.json === true, res.data, COLUMNS, res.data);
  if (o.json) return;
  for (const p of res.data)
    if (p.unreadable)
      note(`gw: provider '${p.name}' is stored but cannot be loaded (${p.reason}): delete it (gw providers delete ${p.name}) and create it again`);
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
