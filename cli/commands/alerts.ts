/**
 * `gw alerts` (the alerts extension's admin routes): `list` prints the recent alerts (GET
 * /v1/alerts), `test` sends a sample alert to every webhook now (POST /v1/alerts/test) and
 * prints what each answered; it exits non-zero when one did not take it. A 404 means the
 * extension is not enabled.
 */
import { adminClient } from '../client/http.ts';
import { CliError } from '../client/errors.ts';
import { printJson, printList } from '../client/output.ts';

const NOT_ENABLED = 'the alerts extension is not enabled: add [extensions.alerts] with a webhook to the gateway config';

interface Alert {
  time: string;
  severity: string;
  rule: string;
  title: string;
}

export async function list(o: { json?: boolean; limit?: number }): Promise<void> {
  const path = o.limit ? `/v1/alerts?limit=${o.limit}` : '/v1/alerts';
  const r = await adminClient().call<{ data: Alert[] }>('GET', path, { notFound: NOT_ENABLED });
  printList(
    o.json === true,
    r,
    [
      { header: 'TIME', value: (a: Alert) => a.time },
      { header: 'SEVERITY', value: (a: Alert) => a.severity },
      { header: 'RULE', value: (a: Alert) => a.rule },
      { header: 'ALERT', value: (a: Alert) => a.title },
    ],
    r.data,
  );
}

interface Sent {
  webhook: string;
  ok: boolean;
  status: number;
  error?: string;
}

export async function test(o: { json?: boolean }): Promise<void> {
  const r = await adminClient().call<{ data: Sent[] }>('POST', '/v1/alerts/test', { body: {}, notFound: NOT_ENABLED });
  if (o.json) printJson(r);
  else for (const s of r.data) process.stdout.write(`${s.webhook}: ${s.ok ? `delivered (HTTP ${s.status})` : `FAILED (${s.error ?? `HTTP ${s.status}`})`}\n`);
  const failed = r.data.filter((s) => !s.ok);
  if (failed.length)
    throw new CliError(`${failed.length} of ${r.data.length} webhook(s) did not take the test alert: ${failed.map((s) => s.webhook).join(', ')}`);
}
