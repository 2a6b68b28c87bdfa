/**
 * A long `previous_response_id` chain of large turns through gw (issue 23, item 3): each turn
 * sends `CHAIN_TURN_MIB` MiB of new input and continues the previous response, on a
 * translated (self-defined, chat-completions) provider, so gw expands the stored history into
 * every upstream body. Prints, per turn, gw's answer, its time, the upstream body gw sent,
 * and gw's resident memory (now and peak, /proc/<pid>/status); stops at the first non-200.
 *
 * Run: `npx node bench/responses-chain.ts` (gw from the sources). Knobs: `CHAIN_TURNS` (24),
 * `CHAIN_TURN_MIB` (4), `CHAIN_MAX_BODY_BYTES` (gw's default when unset).
 */
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, BENCH_KEY, ROOT } from './setup.ts';
import { rssMiB, startChild, stopAll } from './procs.ts';

const TURNS = Number(process.env.CHAIN_TURNS ?? 24);
const TURN_MIB = Number(process.env.CHAIN_TURN_MIB ?? 4);
const MAX_BODY = process.env.CHAIN_MAX_BODY_BYTES;
const MODEL = 'chain-model';

/** Peak resident set size of a process, MiB (VmHWM). */
function peakMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** A chat-completions upstream that counts each request's bytes without keeping them, and answers a short completion. */
async function startCountingUpstream(): Promise<{ url: string; bodies: number[]; close(): Promise<void> }> {
  const bodies: number[] = [];
  const answer = JSON.stringify({
    id: 'chatcmpl-chain',
    object: 'chat.completion',
    created: 1,
    model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: 'noted' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  const srv = createServer((req, res) => {
    let n = 0;
    req.on('data', (d: Buffer) => {
      n += d.length;
    });
    req.on('end', () => {
      bodies.push(n);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => new Promise((r) => srv.close(() => r())) };
}

async function main(): Promise<void> {
  const up = await startCountingUpstream();
  const dir = await mkdtemp(join(tmpdir(), 'gw-chain-'));
  const config = join(dir, 'gateway.toml');
  await writeFile(
    config,
    `listen = "127.0.0.1:0"\nadmin_token = "${ADMIN}"\ndata_dir = "data"\n${MAX_BODY ? `max_body_bytes = ${MAX_BODY}\n` : ''}
[keys.bench]\nkey = "${BENCH_KEY}"\n
[providers.chain]\napi_key = "none"\nbase_url = "${up.url}/v1"\nmax_retries = 0\ntimeout_seconds = 120\nmodels = ["${MODEL}"]\n`,
  );
  const gw = await startChild('gw', [join(ROOT, 'cli/gw.js'), 'serve', '--config', config], /listening on (\S+) \(/, {
    env: { LOG_LEVEL: 'warn', GW_FROM_SOURCE: '1' },
  });
  const url = `http://${gw.ready[1]}`;
  const pid = gw.proc.pid!;
  const text = 'lorem ipsum '.repeat(Math.ceil((TURN_MIB * 1048576) / 12)).slice(0, TURN_MIB * 1048576);
  console.log(`turns of ${TURN_MIB} MiB input; gw idle RSS ${rssMiB(pid).toFixed(0)} MiB`);
  console.log('turn  status  ms      upstream MiB  gw RSS MiB  gw peak MiB');
  let prev: string | undefined;
  const t0 = performance.now();
  try {
    for (let turn = 1; turn <= TURNS; turn++) {
      const before = up.bodies.length;
      const t = performance.now();
      const r = await fetch(`${url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, input: `${turn}: ${text}`, ...(prev ? { previous_response_id: prev } : {}) }),
      });
      const body = (await r.json()) as { id?: string; error?: { message: string; code: string } };
      const ms = performance.now() - t;
      const sent = up.bodies.length > before ? (up.bodies.at(-1)! / 1048576).toFixed(1) : '-';
      console.log(
        `${String(turn).padStart(4)}  ${r.status}     ${ms.toFixed(0).padStart(6)}  ${sent.padStart(12)}  ${rssMiB(pid).toFixed(0).padStart(10)}  ${peakMiB(pid).toFixed(0).padStart(11)}`,
      );
      if (r.status !== 200) {
        console.log(`  ${body.error?.code}: ${body.error?.message}`);
        break;
      }
      prev = body.id;
    }
  } finally {
    console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s; gw peak RSS ${peakMiB(pid).toFixed(0)} MiB`);
    await gw.stop();
    await up.close();
    await stopAll();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
