/**
 * `npm run bench -- --admission`: the admission cost of a virtual key, in process and
 * without HTTP, so the few microseconds it adds are not lost in the noise of a socket
 * round trip. One gateway (LevelDB store in a temp dir, rate_limit + budget on), two keys:
 * `plain`, and `virtual` with every setting of issue 13 (models patterns, rpm, tpm, a
 * monthly budget, expires_at, tags, max_parallel_requests). Each request runs the real
 * code a chat request runs before and after its upstream call: authenticate (lookup and
 * expiry) → admit (model check, plan, in-flight slot, onRequest: rate_limit windows, budget
 * hold on the period counter) → onResponse (tokens recorded, spend settled) → slot given
 * back. CPU time (process.cpuUsage: this thread and the store's I/O threads) per request,
 * in interleaved rounds so drift hits both keys alike; the median round is reported.
 */
import { EventEmitter } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'koa';
import { loadConfig } from '../server/config/load.ts';
import { createGateway, type Gateway } from '../server/gateway.ts';
import { authenticate } from '../lib/http/auth.ts';
import { BEARER_ONLY, KeyReader } from '../lib/http/key-sources.ts';
import { createLogger } from '../server/log.ts';
import { admit } from '../core/pipeline/admit.ts';
import { ResponseInfo } from '../core/hooks.ts';
import type { GwState } from '../core/pipeline/state.ts';
import { envNumber } from './options.ts';

const PLAIN = 'sk-bench-plain-0123456789abcdefghijkl';
const VIRTUAL = 'sk-bench-virtual-0123456789abcdefghij';
const MODEL = 'bench-model';
/** A chat route's key sources, compiled once as the app does. */
const KEYS = new KeyReader(BEARER_ONLY);

const CONFIG = `listen = "127.0.0.1:0"
data_dir = "data"

[keys.plain]
key = "${PLAIN}"

[keys.virtual]
key = "${VIRTUAL}"
models = ["bench-*", "gpt-4o*", "claude-*"]
requests_per_minute = 1000000000
tokens_per_minute = 1000000000000
budget = 1000000000.0
budget_period = "monthly"
expires_at = 2099-01-01
tags = { team = "bench", env = "perf" }
max_parallel_requests = 100000

[providers.upstream]
api_key = "sk-bench-upstream"
base_url = "http://127.0.0.1:9/v1"
models = ["${MODEL}"]

[pricing."${MODEL}"]
input_per_mtok = 2.5
output_per_mtok = 10.0

[extensions.rate_limit]
requests_per_minute = 1000000000
tokens_per_minute = 1000000000000
[extensions.budget]
default_budget = 1000000000.0
`;

const BODY = { model: MODEL, messages: [{ role: 'user', content: 'Say hello in twenty words.' }], max_tokens: 64 };
const RAW = JSON.stringify(BODY);

/** The least of a Koa context that auth and admission read. */
function fakeCtx(gw: Gateway, secret: string, seq: number): Context {
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const state: Partial<GwState> = { id: `bench-${seq}`, startedAt: performance.now(), snap: gw.snapshot, log: gw.log, body: { body: BODY, raw: RAW } };
  return {
    state,
    headers,
    querystring: '',
    res: new EventEmitter(),
    get: (h: string) => headers[h.toLowerCase() as keyof typeof headers] ?? '',
  } as unknown as Context;
}

/** One request's admission and settlement with `secret`. */
async function once(gw: Gateway, secret: string, seq: number): Promise<void> {
  const ctx = fakeCtx(gw, secret, seq);
  const st = ctx.state as GwState;
  st.key = authenticate(ctx, st.snap.keys, st.snap.config.admin_token, KEYS, gw.clock);
  const a = await admit(gw, ctx, { id: 'openai-chat' }, { facts: { route: 'chat', operation: 'generate', model: MODEL, stream: false, maxOutputTokens: 64 } });
  if (!a) throw new Error('admission answered early');
  const rc = a.rc;
  rc.provider = 'upstream';
  rc.status = 200;
  rc.usage = { prompt_tokens: 20, completion_tokens: 64, total_tokens: 84 };
  await gw.hooks.onResponse.promise(rc, new ResponseInfo('', undefined, undefined));
  const freed = gw.inflight.release(rc);
  if (freed) await freed;
}

/** CPU µs per request over `n` requests with `secret`. */
async function round(gw: Gateway, secret: string, n: number, seq: { n: number }): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await once(gw, secret, seq.n++);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs the comparison and prints it; returns the numbers (µs per request). */
export async function runAdmission(): Promise<{ plainUs: number; virtualUs: number; extraUs: number }> {
  const rounds = Math.max(3, Math.round(envNumber('BENCH_ADMISSION_ROUNDS', 15)));
  const perRound = Math.max(100, Math.round(envNumber('BENCH_ADMISSION_REQUESTS', 2000)));
  const dir = await mkdtemp(join(tmpdir(), 'gw-bench-admission-'));
  const file = join(dir, 'gateway.toml');
  await writeFile(file, CONFIG);
  const gw = await createGateway(await loadConfig(file), createLogger('error'));
  try {
    const seq = { n: 0 };
    // warm up both paths (JIT, the store's in-memory records)
    await round(gw, PLAIN, perRound, seq);
    await round(gw, VIRTUAL, perRound, seq);
    const plain: number[] = [];
    const virtual: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // alternate which goes first, so a trend in the machine's load hits both alike
      if (r % 2) {
        virtual.push(await round(gw, VIRTUAL, perRound, seq));
        plain.push(await round(gw, PLAIN, perRound, seq));
      } else {
        plain.push(await round(gw, PLAIN, perRound, seq));
        virtual.push(await round(gw, VIRTUAL, perRound, seq));
      }
    }
    const deltas = plain.map((p, i) => virtual[i]! - p);
    const out = { plainUs: median(plain), virtualUs: median(virtual), extraUs: median(deltas) };
    process.stdout.write(`admission + settlement in process (rate_limit + budget on, LevelDB store), ${rounds} rounds x ${perRound} requests per key, CPU µs per request (median round)
  plain key                         ${out.plainUs.toFixed(1)} µs
  key with every virtual setting    ${out.virtualUs.toFixed(1)} µs
  extra for the virtual key         ${out.extraUs >= 0 ? '+' : ''}${out.extraUs.toFixed(1)} µs  (target <= 30 µs = 0.03 ms: ${out.extraUs <= 30 ? 'met' : 'MISS'})
  rounds' extra, min..max           ${Math.min(...deltas).toFixed(1)} .. ${Math.max(...deltas).toFixed(1)} µs
`);
    return out;
  } finally {
    await gw.close();
    await rm(dir, { recursive: true, force: true });
  }
}
