/**
 * `npm run bench`: a fast local upstream hit directly and through gw, scenario by scenario
 * (bench/scenarios.ts), in separate processes: upstream and gw as children, the load
 * generator (autocannon) here. Prints a table per scenario and the issue's aims, and writes
 * bench/results.json. `--profile` instead profiles gw under load (bench/profile.ts);
 * `--admission` measures a virtual key's admission cost in process (bench/admission.ts).
 *
 * Knobs (env): BENCH_SECONDS (measured seconds per run, default 4), BENCH_WARMUP_SECONDS
 * (default 1), BENCH_STREAMS (streams timed for TTFB per run, default 200),
 * BENCH_CHUNK_GAP_MS (upstream pause between stream events; default 0 = next loop turn),
 * BENCH_OUT (results file, default bench/results.json).
 * Flags: --only a,b (scenario names; `responses-translate` for the in-process Responses
 * translation micro-benchmark, which runs after the scenarios; `headline` for issue 14's
 * headline figures, bench/headline.ts, with its own processes and knobs), --list.
 */
import { writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatHeadline, HEADLINE, headlineFigures, headlineOptions, measureHeadline, type HeadlineFigure, type HeadlineMeasurements } from './headline.ts';
import { formatGeminiTranslate, GEMINI_TRANSLATE, measureGeminiTranslate, type TranslateRow } from './gemini-translate.ts';
import { formatPricingCost, measurePricingCost, PRICING_COST, type PricingCostResult } from './pricing-cost.ts';
import { measurePhase, type PhaseResult } from './measure.ts';
import { formatOtel, measureOtel, OTEL, type OtelResult } from './otel.ts';
import { formatLatency, LATENCY, measureLatency, type LatencyResult } from './latency.ts';
import { AFFINITY, type AffinityRow, formatAffinity, measureAffinity } from './affinity.ts';
import { formatMcp, MCP, type McpResult, measureMcp } from './mcp.ts';
import { stopAll } from './procs.ts';
import { checkAims, compareBaseline, compareDirect, formatAims, formatScenario, type ScenarioResult } from './report.ts';
import { envNumber, toTarget } from './options.ts';
import { formatTranslate, measureTranslate, type TranslateResult } from './responses-translate.ts';
import { scenarios, type Scenario } from './scenarios.ts';
import { GW_LOG_LEVEL, ROOT, haveRedisServer, missingPlugins, startGw, startRedis, startUpstream, type Gw, type Redis } from './setup.ts';

import { ALERTS_EVAL, formatAlerts, gwCpuUsPerRequest, measureAlerts, type AlertsEvalRow } from './alerts-micro.ts';

/** The name `--only` knows the in-process Responses translation micro-benchmark by. */
const TRANSLATE = 'responses-translate';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, list: { type: 'boolean' }, profile: { type: 'boolean' }, admission: { type: 'boolean' } },
  });
  if (values.list) {
    for (const s of scenarios) process.stdout.write(`${s.name.padEnd(22)} ${s.what}\n`);
    process.stdout.write(`${GEMINI_TRANSLATE.padEnd(22)} Gemini-in → openai-out stream translation per event, in process (no sockets)\n`);
    process.stdout.write(`${TRANSLATE.padEnd(22)} in-process: chat chunks → Responses events → SSE text, µs per event\n`);
    process.stdout.write(`${PRICING_COST.padEnd(22)} in-process: a request's price lookup + cost by part (lib/pricing), µs per call\n`);
    process.stdout.write(`${HEADLINE.padEnd(22)} issue 14's figures vs their targets: floor proxy, five extensions, added p50, RSS, 5,000 open streams\n`);
    process.stdout.write(`${OTEL.padEnd(22)} the otel extension (sampling 1.0, OTLP to a local receiver) vs none: throughput and added p50, ABBA\n`);
    process.stdout.write(`${ALERTS_EVAL.padEnd(22)} in-process: the alerts extension's CPU per request (its onFinish tap and check timer), ABBA\n`);
    process.stdout.write(`${LATENCY.padEnd(22)} the usage extension's latency sketches: ns per request in process, and on vs off end to end, ABBA\n`);
    process.stdout.write(`${AFFINITY.padEnd(22)} prompt-cache affinity on vs off, a group of two providers: throughput and CPU per request, ABBA\n`);
    process.stdout.write(`${MCP.padEnd(22)} MCP tools/call through gw vs direct (SDK client and McpServer over HTTP): added p50 per cycle, ABBA\n`);
    return;
  }
  if (values.profile) {
    const { runProfile } = await import('./profile.ts');
    return runProfile();
  }
  if (values.admission) {
    const { runAdmission } = await import('./admission.ts');
    await runAdmission();
    return;
  }
  const only = values.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only?.filter(
    (n) =>
      n !== GEMINI_TRANSLATE &&
      n !== TRANSLATE &&
      n !== HEADLINE &&
      n !== OTEL &&
      n !== ALERTS_EVAL &&
      n !== PRICING_COST &&
      n !== LATENCY &&
      n !== AFFINITY &&
      n !== MCP &&
      !scenarios.some((s) => s.name === n),
  );
  if (unknown?.length) throw new Error(`unknown scenario(s): ${unknown.join(', ')} (npm run bench -- --list)`);
  const selected = only ? scenarios.filter((s) => only.includes(s.name)) : scenarios;
  const seconds = envNumber('BENCH_SECONDS', 4);
  const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 1);
  const streams = Math.round(envNumber('BENCH_STREAMS', 200));
  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    seconds,
    warmupSeconds,
    streams,
    chunkGapMs: envNumber('BENCH_CHUNK_GAP_MS', 0),
    gwLogLevel: GW_LOG_LEVEL,
    loadGenerator: 'autocannon (closed loop, in the bench process)',
    /** 1-minute load average at the start: other work on the machine skews every number. */
    loadAverage: loadavg()[0]!,
  };
  process.stdout.write(`gw bench — node ${meta.node}, ${meta.cpus} CPUs shared by the load generator, the upstream and gw; ${seconds} s per run after ${warmupSeconds} s warm-up; ${streams} timed streams per stream run
gw runs as a child process (cli/gw.js serve, LOG_LEVEL=${GW_LOG_LEVEL}, no extensions unless the scenario says so); latencies in ms; CPU = ms of CPU time per request (gw, upstream)\n\n`);

  if (meta.loadAverage > meta.cpus / 2)
    process.stdout.write(
      `WARNING: load average ${meta.loadAverage.toFixed(1)} on ${meta.cpus} CPUs: other processes are busy, the numbers below will be noisy and low\n\n`,
    );
  const results: ScenarioResult[] = [];
  const gws = new Map<string, Gw | Error>();
  const directRuns = new Map<string, PhaseResult>();
  try {
    if (selected.length) await runScenarios(selected, { up: await startUpstream(), gws, directRuns, seconds, warmupSeconds, streams, results });
  } finally {
    await stopAll();
  }
  // its own processes, once the scenarios' are gone
  let headline: (HeadlineMeasurements & { figures: HeadlineFigure[] }) | undefined;
  if (!only || only.includes(HEADLINE)) {
    process.stderr.write('running headline…\n');
    try {
      const m = await measureHeadline(headlineOptions());
      headline = { ...m, figures: headlineFigures(m) };
    } finally {
      await stopAll();
    }
  }
  let otel: OtelResult | undefined;
  if (!only || only.includes(OTEL)) {
    process.stderr.write('running otel…\n');
    try {
      otel = await measureOtel();
      process.stdout.write(`\n${formatOtel(otel)}\n`);
    } finally {
      await stopAll();
    }
  }
  let latency: LatencyResult | undefined;
  if (!only || only.includes(LATENCY)) {
    process.stderr.write('running latency-sketches…\n');
    try {
      latency = await measureLatency();
      process.stdout.write(`\n${formatLatency(latency)}\n`);
    } finally {
      await stopAll();
    }
  }
  let affinity: AffinityRow[] | undefined;
  if (!only || only.includes(AFFINITY)) {
    process.stderr.write('running affinity…\n');
    try {
      affinity = await measureAffinity();
      process.stdout.write(`\n${formatAffinity(affinity)}\n`);
    } finally {
      await stopAll();
    }
  }
  let mcp: McpResult | undefined;
  if (!only || only.includes(MCP)) {
    process.stderr.write('running mcp…\n');
    try {
      mcp = await measureMcp();
      process.stdout.write(`\n${formatMcp(mcp)}\n`);
    } finally {
      await stopAll();
    }
  }
  // in process, once the children are gone: nothing else competes for the CPU
  let translate: TranslateRow[] | undefined;
  if (!only || only.includes(GEMINI_TRANSLATE)) {
    process.stderr.write(`running ${GEMINI_TRANSLATE}…\n`);
    translate = measureGeminiTranslate();
    process.stdout.write(`${formatGeminiTranslate(translate)}\n`);
  }
  let responses: TranslateResult[] | undefined;
  if (!only || only.includes(TRANSLATE)) {
    process.stderr.write('running responses-translate…\n');
    responses = measureTranslate(Math.round(500 * seconds), 100);
    process.stdout.write(`${formatTranslate(responses)}\n`);
  }
  let alertsEval: AlertsEvalRow[] | undefined;
  if (!only || only.includes(ALERTS_EVAL)) {
    process.stderr.write(`running ${ALERTS_EVAL}…\n`);
    alertsEval = await measureAlerts();
  }
  let pricing: PricingCostResult | undefined;
  if (!only || only.includes(PRICING_COST)) {
    process.stderr.write(`running ${PRICING_COST}…\n`);
    pricing = measurePricingCost();
    process.stdout.write(`\n${formatPricingCost(pricing)}`);
  }
  // a full run also measures a virtual key's admission in process (issue 13's aim)
  let admission: Awaited<ReturnType<typeof import('./admission.ts').runAdmission>> | undefined;
  if (!only) {
    process.stderr.write('running admission (in process)…\n');
    admission = await (await import('./admission.ts')).runAdmission();
    process.stdout.write('\n');
  }
  const aims = checkAims(results, translate, admission);
  for (const row of otel?.rows ?? [])
    if (row.off.runs > 0 && !row.what.includes('1 connection'))
      aims.push({ aim: `otel on >= 0.9x throughput (${row.what})`, scenario: OTEL, value: row.ratio, unit: 'x', limit: 0.9, met: row.ratio >= 0.9 });
  for (const row of latency?.rows ?? [])
    aims.push({
      aim: `latency sketches on >= 0.98x throughput (${row.what})`,
      scenario: LATENCY,
      value: row.ratio,
      unit: 'x',
      limit: 0.98,
      met: row.ratio >= 0.98,
    });
  for (const row of affinity ?? [])
    aims.push({ aim: `affinity on >= 0.97x throughput (${row.what})`, scenario: AFFINITY, value: row.ratio, unit: 'x', limit: 0.97, met: row.ratio >= 0.97 });
  for (const r of responses ?? [])
    aims.push({
      aim: `Responses translation <= 10 µs/event (${r.name})`,
      scenario: TRANSLATE,
      value: r.usPerEvent,
      unit: 'µs',
      limit: 10,
      met: r.usPerEvent <= 10,
    });
  if (alertsEval) {
    const gwUs = gwCpuUsPerRequest(results.find((r) => r.name === 'json-c50')?.gw?.gwCpuMsPerReq);
    process.stdout.write(`\n${formatAlerts(alertsEval, gwUs)}`);
    if (gwUs !== undefined)
      for (const r of alertsEval) {
        const share = (r.usPerRequest / gwUs) * 100;
        aims.push({
          aim: `alerts evaluation < 2% of gw's CPU per request (${r.what})`,
          scenario: ALERTS_EVAL,
          value: share,
          unit: '%',
          limit: 2,
          met: share < 2,
        });
      }
  }
  if (mcp) {
    const added = mcp.legacy.map((c) => c.added).toSorted((a, b) => a - b)[Math.floor(mcp.legacy.length / 2)]!;
    aims.push({ aim: 'MCP tools/call added p50 <= 1 ms (HTTP upstream)', scenario: MCP, value: added, unit: 'ms', limit: 1, met: added <= 1 });
  }
  if (pricing)
    aims.push({ aim: 'cost function <= 2 µs/request', scenario: PRICING_COST, value: pricing.usPerCall, unit: 'µs', limit: 2, met: pricing.usPerCall <= 2 });
  if (aims.length || !headline) process.stdout.write(formatAims(aims));
  if (headline) process.stdout.write(`\n${formatHeadline(headline.figures)}`);
  const file = process.env.BENCH_OUT || join(ROOT, 'bench/results.json');
  await writeFile(
    file,
    `${JSON.stringify({ meta, scenarios: results, geminiTranslate: translate, responsesTranslate: responses, alertsEval, pricingCost: pricing, latency, affinity, admission, aims, headline, otel, mcp }, null, 2)}\n`,
  );
  process.stdout.write(`\nwritten: ${file}\n`);
}

/** Runs `selected` in order against the state's upstream, freeing each gw (and redis-server) after its last scenario. */
async function runScenarios(selected: Scenario[], st: RunState): Promise<void> {
  for (const [i, s] of selected.entries()) {
    const r = await runScenario(s, st);
    st.results.push(r);
    process.stdout.write(`${formatScenario(r)}\n`);
    // free a gw no later scenario needs, so the next one's RSS and CPU stand alone
    if (!selected.slice(i + 1).some((n) => n.gw.id === s.gw.id)) {
      const g = st.gws.get(s.gw.id);
      if (g && !(g instanceof Error)) await g.stop();
    }
    // and the redis-server once no later scenario uses it
    if (st.redis && !(st.redis instanceof Error) && !selected.slice(i + 1).some((n) => n.gw.store === 'redis')) await st.redis.child.stop();
  }
}

interface RunState {
  up: Awaited<ReturnType<typeof startUpstream>>;
  gws: Map<string, Gw | Error>;
  directRuns: Map<string, PhaseResult>;
  results: ScenarioResult[];
  seconds: number;
  warmupSeconds: number;
  streams: number;
  /** Started by the first scenario on the Redis store. */
  redis?: Redis | Error;
}

async function runScenario(s: Scenario, st: RunState): Promise<ScenarioResult> {
  const r: ScenarioResult = { name: s.name, what: s.what, status: 'ok', connections: s.connections, stream: s.stream === true };
  const missing = missingPlugins(s.gw);
  if (missing.length) return { ...r, status: 'pending', reason: `needs ${missing.join(', ')} (not in this tree yet); skipped` };
  if (s.gw.store === 'redis') {
    if (!haveRedisServer()) return { ...r, status: 'pending', reason: 'needs redis-server on PATH (Debian/Ubuntu: apt-get install redis-server); skipped' };
    if (!st.redis) {
      process.stderr.write('starting redis-server…\n');
      st.redis = await startRedis().catch((e: Error) => e);
    }
    if (st.redis instanceof Error) return { ...r, status: 'failed', reason: `redis-server did not start: ${st.redis.message.split('\n')[0]}` };
  }
  const redis = st.redis instanceof Error ? undefined : st.redis;
  let gw = st.gws.get(s.gw.id);
  if (!gw) {
    process.stderr.write(`starting gw (${s.gw.id})…\n`);
    gw = await startGw(s.gw, st.up.url, [], redis?.url).catch((e: Error) => e);
    st.gws.set(s.gw.id, gw);
  }
  if (gw instanceof Error) return { ...r, status: 'failed', reason: `gw (${s.gw.id}) did not start: ${gw.message.split('\n').slice(0, 6).join(' | ')}` };
  r.gwIdleRssMiB = gw.idleRssMiB;
  const streamConcurrency = s.ttfbConcurrency ?? s.connections;
  const base = {
    connections: s.connections,
    seconds: st.seconds,
    warmupSeconds: st.warmupSeconds,
    streams: s.stream ? st.streams : 0,
    streamConcurrency,
    upstreamPid: st.up.child.proc.pid!,
    upstreamCalls: st.up.calls,
  };
  process.stderr.write(`running ${s.name}…\n`);
  if (s.direct) {
    const key = JSON.stringify([s.direct, s.connections, s.stream === true, streamConcurrency]);
    let d = st.directRuns.get(key);
    if (!d) {
      d = await measurePhase(toTarget(st.up.url, s.direct, true), base);
      st.directRuns.set(key, d);
    }
    r.direct = d;
  }
  r.gw = await measurePhase(toTarget(gw.url, s.request, true), {
    ...base,
    gwPid: gw.child.proc.pid!,
    storePid: s.gw.store === 'redis' ? redis?.child.proc.pid : undefined,
  });
  if (r.gw.load.requests === 0) return { ...r, status: 'failed', reason: `no 2xx answer through gw (${r.gw.load.non2xx} non-2xx, ${r.gw.load.errors} errors)` };
  if (r.direct) r.vsDirect = compareDirect(r.gw, r.direct);
  const baseline = s.compare ? st.results.find((x) => x.name === s.compare && x.status === 'ok') : undefined;
  if (baseline?.gw) r.vs = compareBaseline(baseline.name, r.gw, baseline.gw);
  return r;
}

process.once('SIGINT', () => {
  process.stderr.write('\ninterrupted: stopping children\n');
  void stopAll().finally(() => process.exit(130));
});

main().catch(async (err: Error) => {
  await stopAll();
  process.stderr.write(`bench: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
