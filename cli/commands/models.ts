/**
 * `gw models`: every routable model and alias, with the providers serving it
 * (GET /v1/admin/models, the /v1/models list for the admin token).
 */
import { adminClient } from '../client/http.ts';
import { printList, type Column } from '../client/output.ts';

interface ModelRow {
  id: string;
  owned_by: string;
  alias_for?: string;
}

const COLUMNS: ReadonlyArray<Column<ModelRow>> = [
  { header: 'MODEL', value: (m) => m.id },
  { header: 'ALIAS_FOR', value: (m) => m.alias_for },
  { header: 'PROVIDERS', value: (m) => m.owned_by },
];

export async function models(o: { json?: boolean }): Promise<void> {
  const res = await adminClient().call<{ data: ModelRow[] }>('GET', '/v1/admin/models');
  printList(o.json === true, res.data, COLUMNS, res.data);
}
