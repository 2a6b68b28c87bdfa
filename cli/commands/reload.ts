/**
 * `gw reload`: POST /v1/admin/reload — the server re-reads its config file (as on SIGHUP).
 */
import { adminClient } from '../client/http.ts';
import { note, printJson } from '../client/output.ts';
import { counted } from '../../lib/plural.ts';

interface ReloadReport {
  file: string;
  providers: number;
  models: number;
  keys: number;
  warnings: string[];
}

export async function reload(o: { json?: boolean }): Promise<void> {
  const r = await adminClient().call<ReloadReport>('POST', '/v1/admin/reload');
  if (o.json) return printJson(r);
  process.stdout.write(`reloaded ${r.file}: ${counted(r.providers, 'provider')}, ${counted(r.models, 'model')}, ${counted(r.keys, 'key')}\n`);
  for (const w of r.warnings) note(`gw: warning: ${w}`);
}
