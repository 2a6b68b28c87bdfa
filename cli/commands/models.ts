/**
 * `gw models`: every routable model and alias, with the providers serving it and the price
 * that applies at each, with where it came from (GET /v1/admin/models, the /v1/models list
 * for the admin token, with its `prices`).
 */
import { adminClient } from '../client/http.ts';
import { printList, type Column } from '../client/output.ts';

interface PriceRow {
  provider: string;
  source: 'provider' | 'config' | 'bundled' | null;
  entry?: string;
  table?: string;
  input_per_mtok?: number;
  output_per_mtok?: number;
  cache_read_per_mtok?: number;
  cache_write_per_mtok?: number;
  tiers?: unknown[];
}

interface ModelRow {
  id: string;
  owned_by: string;
  alias_for?: string;
  prices?: PriceRow[];
}

/** `in/out/cache read/cache write` USD per million tokens, `+N tiers`; `unpriced` when nothing prices it. */
function rates(p: PriceRow): string {
  if (p.source === null) return 'unpriced';
  const tiers = p.tiers?.length ? ` +${p.tiers.length} tier${p.tiers.length > 1 ? 's' : ''}` : '';
  return `${p.input_per_mtok}/${p.output_per_mtok}/${p.cache_read_per_mtok}/${p.cache_write_per_mtok}${tiers}`;
}

/** `config [pricing."m"]`, `provider`, `bundled <table>: <entry>`. */
function source(p: PriceRow): string {
  if (p.source === null) return '-';
  if (p.source === 'bundled') return `bundled ${p.table}: ${p.entry}`;
  return p.source === 'config' ? `[pricing."${p.entry}"]` : `[providers.${p.provider}.pricing."${p.entry}"]`;
}

/** One value per provider serving the model, `provider=value`, joined; just the value for one provider. */
function perProvider(m: ModelRow, f: (p: PriceRow) => string): string | undefined {
  const list = m.prices ?? [];
  if (list.length === 0) return undefined;
  return list.length === 1 ? f(list[0]!) : list.map((p) => `${p.provider}=${f(p)}`).join('; ');
}

const COLUMNS: ReadonlyArray<Column<ModelRow>> = [
  { header: 'MODEL', value: (m) => m.id },
  { header: 'ALIAS_FOR', value: (m) => m.alias_for },
  { header: 'PROVIDERS', value: (m) => m.owned_by },
  { header: 'USD/MTOK(IN/OUT/CACHED/WRITE)', value: (m) => perProvider(m, rates) },
  { header: 'PRICE_FROM', value: (m) => perProvider(m, source) },
];

export async function models(o: { json?: boolean }): Promise<void> {
  const res = await adminClient().call<{ data: ModelRow[] }>('GET', '/v1/admin/models');
  printList(o.json === true, res.data, COLUMNS, res.data);
}
