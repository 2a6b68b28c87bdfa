/**
 * `gw alerts` (the alerts extension's admin routes): `list` prints the recent alerts (GET
 * /v1/alerts) with what became of each at each webhook, and each webhook's last delivery on
 * stderr; `test` sends a sample alert to every webhook now (POST /v1/alerts/test) and prints
 * what each answered; it exits non-zero when one did not take it. A 404 means the extension
 * is not enabled.
 */
import { adminClient } from '../client/http.ts';
import { CliError } from '../client/errors.ts';
import { note, printJson, printList } from '../client/output.ts';

const NOT_ENABLED = 'the alerts extension is not enabled: add [extensions.alerts] with a webhook to the gateway config';

/** An alert's delivery to one webhook (or a webhook's last one), as GET /v1/alerts lists it. */
interface Delivery {
  webhook?: string;
  outcome: 'delivered' | 'failed' | 'dropped' | 'pending' | 'unknown';
  status?: number;
  error?: string;
  attempts?: number;
  time?: string;
}

interface Alert {
  time: string;
  severity: string;
  rule: string;
  title: string;
  /** Absent from a gateway older than delivery outcomes. */
  deliveries?: Delivery[];
}

interface Listed {
  data: Alert[];
  webhooks: Array<{ name: string; format: string; last_delivery?: (Delivery & { alert: string }) | null }>;
}

/** `delivered (HTTP 200)`, `FAILED (HTTP 503, 5 attempts)`, `pending`: one delivery in a few words. */
export function outcomeText(d: Delivery): string {
  const attempts = d.attempts !== undefined && d.attempts > 1 ? `, ${d.attempts} attempts` : '';
  if (d.outcome === 'delivered') return `delivered (HTTP ${d.status}${attempts})`;
  if (d.outcome === 'failed' || d.outcome === 'dropped') return `${d.outcome.toUpperCase()} (${d.error ?? `HTTP ${d.status}`}${attempts})`;
  return d.outcome;
}

export async function list(o: { json?: boolean; limit?: number }): Promise<void> {
  const path = o.limit ? `/v1/alerts?limit=${o.limit}` : '/v1/alerts';
  const r = await adminClient().call<Listed>('GET', path, { notFound: NOT_ENABLED });
  printList(
    o.json === true,
    r,
    [
      { header: 'TIME', value: (a: Alert) => a.time },
      { header: 'SEVERITY', value: (a: Alert) => a.severity },
      { header: 'RULE', value: (a: Alert) => a.rule },
      { header: 'DELIVERIES', value: (a: Alert) => (a.deliveries ?? []).map((d) => `${d.webhook}: ${outcomeText(d)}`).join('; ') },
      { header: 'ALERT', value: (a: Alert) => a.title },
    ],
    r.data,
  );
  // each webhook's last delivery, alerts and tests alike: on stderr, so stdout stays one alert a line
  if (!o.json)
    for (const w of r.webhooks ?? []) {
      const last = w.last_delivery;
      note(`webhook ${w.name} (${w.format}): ${last ? `last delivery ${last.time} ${outcomeText(last)}` : 'no delivery yet'}`);
    }
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
