/**
 * `npm run bench -- --only alerts-eval` (or `npx node --conditions=gw-source
 * bench/alerts-micro.ts`): the alerts extension's CPU per request, in process (the number would drown in HTTP noise on a small shared machine).
 * Drives the real extension's onFinish tap with synthetic finished requests — each carrying
 * the budget's charge (BUDGET_SETTLED) at 30% of the key's budget (below every threshold)
 * or at 85% (past 80%: the already-claimed path) — with budget, two error-rate rules (model
 * and provider), a circuit and a p95 rule checked every second. A = no alerts, B = alerts;
 * ABBA per cycle; the delta is reported per request and against gw's own CPU per request
 * (bench/results.json, json-c50, when present). Aim: under 2% of gw's CPU per request.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { RequestContext } from '../core/context.ts';
import { createHooks, type FinishedRequest } from '../core/hooks.ts';
import { keyInfo } from '../lib/keys.ts';
import { createLogger } from '../server/log.ts';
import { openLevelStore } from '../plugins/stores/level/level.ts';
import alerts from '../plugins/extensions/alerts/index.ts';
import { BUDGET_SETTLED } from '../sdk/facts.ts';
import { abbaDelta } from './abba.ts';
import { microGateway, setupExtension } from './micro-gateway.ts';

const N = Number(process.env.MICRO_REQUESTS ?? 200_000);
const CYCLES = Number(process.env.MICRO_CYCLES ?? 3);
const log = createLogger('error');
const KEY = keyInfo('default', { budget: 10 });
const info = microGateway(KEY, 'm', {
  providers: () => [{ name: 'upstream', kind: 'openai', circuit: 'closed', health: () => ({ last_5m: { served: 0 } }) as never }],
});

const SECTION = {
  webhooks: [{ name: 'sink', url: 'http://127.0.0.1:9/hook' }],
  check_interval_seconds: 1,
  rules: [
    { type: 'budget' },
    { type: 'error_rate', scope: 'model', threshold_percent: 20 },
    { type: 'error_rate', scope: 'provider', threshold_percent: 20 },
    { type: 'circuit' },
    { type: 'latency_p95', threshold_ms: 10_000 },
  ],
};

/** CPU per request, µs, of N onFinish calls, with or without the alerts extension. */
async function run(withAlerts: boolean, spentPct: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-alerts-micro-'));
  const store = await openLevelStore(dir);
  const hooks = createHooks();
  const handle = withAlerts ? await setupExtension(alerts, SECTION, hooks, info, log, store.namespace('ext:alerts')) : undefined;
  const settled = { key: 'default', spentUsd: spentPct / 10, costUsd: 0.001, budgetUsd: 10, period: undefined, periodStart: undefined, resetsAt: undefined };
  const one = (i: number) => {
    const rc = new RequestContext(
      `req-${i}`,
      { route: 'chat', format: 'openai-chat', operation: 'generate', model: 'm', stream: false },
      KEY,
      { model: 'm' },
      '{"model":"m"}',
      'm',
      0,
      log,
    );
    rc.provider = 'upstream';
    rc.status = i % 50 === 0 ? 502 : 200;
    rc.state.set(BUDGET_SETTLED, settled);
    const f: FinishedRequest = {
      id: rc.id,
      route: 'chat',
      time: 0,
      totalMs: 2,
      ttfbMs: 2,
      status: rc.status,
      key: KEY,
      model: 'm',
      rc,
      error: undefined,
      rawBody: rc.rawBody,
      state: rc.state,
    };
    if (hooks.onFinish.isUsed()) hooks.onFinish.call(f);
  };
  const pass = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      one(i);
      // let timers, claims and deliveries run, as a serving gateway would between requests
      if (i % 1000 === 999) await turn();
    }
  };
  await pass(0, 5000); // warm-up (and the one claim of the 85% case)
  const c0 = process.cpuUsage();
  await pass(5000, 5000 + N);
  const c = process.cpuUsage(c0);
  await handle?.close?.();
  await store.close();
  await rm(dir, { recursive: true, force: true });
  return ((c.user + c.system) / N) * 1; // µs
}

/** gw's own CPU per request, µs: json-c50 of this run, else of bench/results.json. */
export function gwCpuUsPerRequest(fromRun?: number): number | undefined {
  if (fromRun !== undefined) return fromRun * 1000;
  try {
    const r = JSON.parse(readFileSync(new URL('results.json', import.meta.url), 'utf8'));
    const s = r.scenarios.find((x: { name: string }) => x.name === 'json-c50');
    return s?.gw?.gwCpuMsPerReq ? s.gw.gwCpuMsPerReq * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** One case's result: the added CPU per request (median of the ABBA cycles), µs, and each cycle's. */
export interface AlertsEvalRow {
  what: string;
  usPerRequest: number;
  cycles: number[];
}

/** The name `--only` knows this measurement by. */
export const ALERTS_EVAL = 'alerts-eval';

/** Measures both cases (spend below every threshold; past 80%, already claimed). */
export async function measureAlerts(cycles = CYCLES): Promise<AlertsEvalRow[]> {
  const rows: AlertsEvalRow[] = [];
  for (const pct of [30, 85]) {
    const d = await abbaDelta(
      cycles,
      () => run(false, pct),
      () => run(true, pct),
    );
    rows.push({ what: `spent ${pct}% of the budget`, usPerRequest: d.median, cycles: d.cycles });
  }
  return rows;
}

/** The report lines; `gwUs` is gw's CPU per request (µs) to compare with. */
export function formatAlerts(rows: AlertsEvalRow[], gwUs: number | undefined): string {
  const lines = [`${ALERTS_EVAL}: the alerts extension's CPU per request (budget, error_rate ×2, circuit, latency_p95), ${N} requests per run, ABBA`];
  for (const r of rows) {
    const share = gwUs === undefined ? '' : ` = ${((r.usPerRequest / gwUs) * 100).toFixed(2)}% of gw's ${gwUs.toFixed(0)} µs (json-c50; aim < 2%)`;
    lines.push(`  ${r.what.padEnd(26)} +${r.usPerRequest.toFixed(2)} µs CPU per request${share}  (cycles: ${r.cycles.map((d) => d.toFixed(2)).join(', ')} µs)`);
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(formatAlerts(await measureAlerts(), gwCpuUsPerRequest()));
