/**
 * The bench's pure parts: /proc parsing, `--trace-gc` lines, percentiles, canned payloads, targets and the
 * CPU profile summary. Run with `npx ava --config bench/ava.config.js`.
 */
import { PassThrough } from 'node:stream';
import test from 'ava';
import { areaOf, summarizeProfile, type CpuProfile } from '../cpuprofile-top.ts';
import { GcMeter, parseGcLine } from '../gc-trace.ts';
import { toTarget } from '../options.ts';
import { buildPayloads, CLIENT_CHUNKS, TEXT_PIECES } from '../payloads.ts';
import { CLK_TCK, parseStatCpu, parseVmRssMiB, statusMiB } from '../procs.ts';
import { checkAims, compareDirect, type ScenarioResult } from '../report.ts';
import { scenarios } from '../scenarios.ts';
import { gwConfig } from '../setup.ts';
import { parseConfig } from '../../server/config/load.ts';
import { percentile, Samples, summarize } from '../stats.ts';

test('parseStatCpu reads utime and stime after a command name holding spaces and parens', (t) => {
  // fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  const stat = '4242 (node (gw) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 40 0 0 20 0 11 0';
  const cpu = parseStatCpu(stat);
  t.is(cpu.userMs, (250 * 1000) / CLK_TCK);
  t.is(cpu.sysMs, (40 * 1000) / CLK_TCK);
});

test('parseVmRssMiB reads VmRSS in kB as MiB', (t) => {
  t.is(parseVmRssMiB('Name:\tnode\nVmPeak:\t  999 kB\nVmRSS:\t   51200 kB\n'), 50);
  t.true(Number.isNaN(parseVmRssMiB('Name:\tnode\n')));
  // the soak's split of RSS, from the same file
  const status = 'Name:\tnode\nVmRSS:\t  3072 kB\nRssAnon:\t  2048 kB\nRssFile:\t  1024 kB\n';
  t.is(statusMiB(status, 'RssAnon'), 2);
  t.is(statusMiB(status, 'RssFile'), 1);
});

test('percentile is nearest-rank; summarize gives p50, p99 and mean', (t) => {
  const s = new Samples();
  for (let i = 100; i >= 1; i--) s.push(i / 10);
  t.is(percentile(s.sorted(), 50), 5);
  t.is(percentile(s.sorted(), 99), 9.9);
  t.is(percentile(s.sorted(), 100), 10);
  const sum = summarize(s);
  t.is(sum.p50, 5);
  t.is(Math.round(sum.mean * 100) / 100, 5.05);
  t.true(Number.isNaN(percentile([], 50)));
});

test('Samples grows past its first buffer', (t) => {
  const s = new Samples();
  for (let i = 0; i < 10_000; i++) s.push(i);
  t.is(s.length, 10_000);
  t.is(s.sorted()[9_999], 9_999);
});

test('canned streams: 20 valid common-format chunks, usage only when asked, [DONE] last', (t) => {
  const p = buildPayloads();
  t.is(CLIENT_CHUNKS, 20);
  t.is(p.openaiSse.length, CLIENT_CHUNKS + 1);
  t.is(p.openaiSse.at(-1), 'data: [DONE]\n\n');
  const chunks = p.openaiSse
    .slice(0, -1)
    .map((f) => JSON.parse(f.slice(6)) as { object: string; choices: Array<{ delta: { content?: string }; finish_reason: string | null }>; usage?: unknown });
  t.true(chunks.every((c) => c.object === 'chat.completion.chunk' && c.usage === undefined));
  t.is(chunks.filter((c) => c.choices[0]?.delta.content).length, TEXT_PIECES);
  t.is(chunks.at(-1)!.choices[0]!.finish_reason, 'stop');
  const usage = JSON.parse(p.openaiSseWithUsage.at(-2)!.slice(6)) as { choices: unknown[]; usage: { total_tokens: number } };
  t.deepEqual(usage.choices, []);
  t.is(typeof usage.usage.total_tokens, 'number');
  t.truthy((JSON.parse(p.openaiJson) as { choices: unknown[] }).choices.length);
});

test('canned anthropic and gemini streams carry every text piece', (t) => {
  const p = buildPayloads();
  const deltas = p.anthropicSse.filter((e) => e.startsWith('event: content_block_delta'));
  t.is(deltas.length, TEXT_PIECES);
  t.true(p.anthropicSse[0]!.startsWith('event: message_start'));
  t.true(p.anthropicSse.at(-1)!.startsWith('event: message_stop'));
  t.is(p.geminiSse.length, TEXT_PIECES);
  t.true(p.geminiSse.every((e) => e.endsWith('\r\n\r\n')));
  const last = JSON.parse(p.geminiSse.at(-1)!.slice(6)) as { candidates: Array<{ finishReason?: string }>; usageMetadata: unknown };
  t.is(last.candidates[0]!.finishReason, 'STOP');
});

test('toTarget: gateway key only when asked, unique bodies carry the id placeholder', (t) => {
  const s = scenarios.find((x) => x.name === 'ext5-json-c50')!;
  const gw = toTarget('http://127.0.0.1:1', s.request, true);
  t.is(gw.url, 'http://127.0.0.1:1/v1/chat/completions');
  t.regex(gw.headers.authorization!, /^Bearer sk-/);
  t.true(gw.idReplacement);
  t.true(gw.body!.includes('[<id>]'));
  const direct = toTarget('http://127.0.0.1:1', s.direct!, false);
  t.false('authorization' in direct.headers);
  t.false(direct.body!.includes('[<id>]'));
});

test('scenarios: unique names, baselines that exist and run earlier', (t) => {
  const names = scenarios.map((s) => s.name);
  t.is(new Set(names).size, names.length);
  for (const [i, s] of scenarios.entries()) {
    if (s.compare) t.true(names.slice(0, i).includes(s.compare), `${s.name} compares with ${s.compare}`);
  }
});

test("a setup's key settings land under [keys.bench] and pass the config schema", (t) => {
  const vkey = scenarios.find((s) => s.name === 'vkey-json-c1')!.gw;
  const plain = scenarios.find((s) => s.name === 'limits-json-c1')!.gw;
  const cfg = parseConfig(gwConfig(vkey, 'http://127.0.0.1:9'), 'bench.toml', '/tmp/bench.toml');
  t.like(cfg.keys.bench, { budget_period: 'monthly', max_parallel_requests: 100000, expires_at: '2099-01-01T00:00:00Z', tags: { team: 'bench', env: 'perf' } });
  t.deepEqual(Object.keys(parseConfig(gwConfig(plain, 'http://127.0.0.1:9'), 'bench.toml', '/tmp/bench.toml').keys.bench!), ['key']);
});

test('summarizeProfile: self and total per function, idle apart, time window honoured', (t) => {
  const p: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2, 4] },
      { id: 2, callFrame: { functionName: 'chatCompletions', url: 'file:///w/core/routes/chat.ts', lineNumber: 41, columnNumber: 0 }, children: [3] },
      { id: 3, callFrame: { functionName: 'parse', url: 'file:///w/node_modules/@hapi/bourne/lib/index.js', lineNumber: 8, columnNumber: 0 } },
      { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1, columnNumber: -1 } },
    ],
    samples: [2, 3, 3, 4, 3],
    timeDeltas: [1000, 1000, 1000, 1000, 1000],
    startTime: 0,
    endTime: 5000,
  };
  const s = summarizeProfile(p);
  t.is(s.busyMs, 4);
  t.is(s.idleMs, 1);
  const chat = s.functions.find((f) => f.fn === 'chatCompletions')!;
  t.is(chat.selfMs, 1);
  t.is(chat.totalMs, 4);
  t.is(chat.where, 'core/routes/chat.ts:42');
  t.is(s.functions[0]!.fn, 'parse');
  t.is(s.functions[0]!.area, 'npm:@hapi/bourne');
  t.is(summarizeProfile(p, { fromMs: 2.5, toMs: 5 }).busyMs, 2);
});

test('areaOf names gw folders, packages and node internals', (t) => {
  t.is(areaOf('file:///w/core/http/upstream.ts', 'f'), 'gw:core/http');
  t.is(areaOf('file:///w/core/app.ts', 'f'), 'gw:core');
  t.is(areaOf('file:///w/lib/http/client.ts', 'f'), 'gw:lib/http');
  t.is(areaOf('file:///w/plugins/providers/openai/index.ts', 'f'), 'gw:plugins/providers');
  t.is(areaOf('file:///w/protocols/openai-chat/compatible.ts', 'f'), 'gw:protocols/openai-chat');
  t.is(areaOf('file:///w/node_modules/undici/lib/core/util.js', 'f'), 'npm:undici');
  t.is(areaOf('node:internal/streams/writable', 'f'), 'node:internal/streams');
  t.is(areaOf('', '(garbage collector)'), '(garbage collector)');
});

test('aims: checked against their scenarios, met or missed', (t) => {
  const phase = (rps: number, p50: number, cpu?: number) => ({
    load: { requests: 1, seconds: 1, rps, p50, p99: p50, mean: p50, errors: 0, non2xx: 0 },
    upstreamCpuMsPerReq: 0,
    loadgenCpuMsPerReq: 0,
    upstreamCallsPerReq: 1,
    gwCpuMsPerReq: cpu,
  });
  const gw = phase(400, 0.35, 0.15);
  const direct = phase(1000, 0.1);
  const r: ScenarioResult = { name: 'json-c1', what: '', status: 'ok', connections: 1, stream: false, gw, direct, vsDirect: compareDirect(gw, direct) };
  const aims = checkAims([r]);
  t.deepEqual(
    aims.map((a) => [a.aim, a.met]),
    [
      ['gw CPU per request < 0.2 ms', true],
      ['added p50 at concurrency 1 < 0.2 ms', false],
    ],
  );
  // the virtual key aim comes from the in-process measurement (µs → ms)
  t.like(checkAims([], undefined, { extraUs: 5 })[0], { aim: 'virtual key: extra CPU <= 0.03 ms', value: 0.005, met: true });
  t.false(checkAims([], undefined, { extraUs: 31 })[0]!.met);
});

test('parseGcLine reads a scavenge pause, and a mark-compact pause with its incremental marking steps', (t) => {
  t.deepEqual(
    parseGcLine(
      '[7626:0x7f404ff7a000]    39486 ms: Scavenge 51.7 (81.9) -> 47.1 (81.9) MB, pooled: 6 MB, 3.90 / 0.00 ms  (average mu = 0.984, current mu = 0.982) task; ',
    ),
    { kind: 'scavenge', ms: 3.9 },
  );
  const mc = parseGcLine(
    '[7626:0x7f404ff7a000]    40112 ms: Mark-Compact 60.1 (85.2) -> 45.3 (80.1) MB, pooled: 0 MB, 5.12 / 0.00 ms  (+ 12.3 ms in 40 steps since start of marking, biggest step 1.2 ms, walltime since start of marking 180 ms) finalize incremental marking via task; GC in old space requested',
  );
  t.is(mc?.kind, 'mark-compact');
  t.is(Math.round(mc!.ms * 100) / 100, 17.42);
  t.deepEqual(parseGcLine('[1:0x1]  5 ms: Mark-Compact 4.0 (5.0) -> 3.0 (5.0) MB, 2.50 / 0.00 ms  (average mu = 1.000) allocation failure;'), {
    kind: 'mark-compact',
    ms: 2.5,
  });
  t.is(parseGcLine('listening on 127.0.0.1:4000 (1 models)'), undefined);
});

test('GcMeter sums the lines of a stream, a line split across chunks included', async (t) => {
  const out = new PassThrough();
  const gc = new GcMeter(out);
  out.write('[1:0x1]  10 ms: Scavenge 5.0 (6.0) -> 4.0 (6.0) MB, pooled: 0 MB, 1.25 / 0.00 ms  task;\n[1:0x1]  20 ms: Scav');
  out.write('enge 5.0 (6.0) -> 4.0 (6.0) MB, pooled: 0 MB, 0.75 / 0.00 ms  task;\nnot a gc line\n');
  await new Promise((r) => setImmediate(r));
  t.is(gc.scavenges, 2);
  t.is(gc.scavengeMs, 2);
  t.is(gc.markCompacts, 0);
  t.is(gc.totalMs, 2);
});
