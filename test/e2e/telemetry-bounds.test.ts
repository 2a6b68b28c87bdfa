/**
 * Telemetry keeps a bound on every string a client chooses (issue 38, item 1): a gw process
 * with otel, the request log and the logging extension on, sent model names of a megabyte
 * (each answered 400), keeps its memory, answers `GET /v1/otel/spans?limit=200` with 200, and
 * records the name cut to 256 characters and marked as cut in the server span, the request
 * log and its log lines. Made-up model names never become metric series (Prometheus or OTLP).
 */
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Pool } from 'undici';
import { ADMIN_TOKEN, baseConfig, KEY, spawnGateway } from '../helpers/gateway.ts';
import { replyJson } from '../helpers/upstream.ts';
import { localProvider, post, setupOtel } from './otel-helpers.ts';

/** A collector that takes every export and keeps nothing (the test process holds no span). */
async function drainCollector(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Resident set size of process `pid`, MB (Linux: /proc). */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const MIB = 1 << 20;
const HUGE_MODEL = 'm'.repeat(MIB);
const HUGE_MODEL_BODY = JSON.stringify({ model: HUGE_MODEL, messages: [{ role: 'user', content: 'hi' }] });
const OK_BODY = JSON.stringify({ model: 'mock-a', messages: [{ role: 'user', content: 'hi' }] });

/**
 * POSTs `body` to the chat route, `concurrency` at a time, until `ms` passed or `max` were sent;
 * the statuses seen, by count.
 */
async function hammer(origin: string, body: string, opts: { ms: number; max: number; concurrency: number }): Promise<Record<number, number>> {
  const pool = new Pool(origin, { connections: opts.concurrency });
  const statuses: Record<number, number> = {};
  const end = Date.now() + opts.ms;
  let sent = 0;
  const worker = async () => {
    while (sent < opts.max && Date.now() < end) {
      sent++;
      const r = await pool.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body,
      });
      await r.body.dump();
      statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  await pool.close();
  return statuses;
}

const HI = [{ role: 'user', content: 'hi' }];
const COMPLETION = {
  id: 'c-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};

const admin = (url: string, path: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

(process.platform === 'linux' ? test : test.skip)(
  '1 MB model names with otel on: RSS stays bounded, GET /v1/otel/spans?limit=200 answers 200, the name is kept cut and marked in spans, the request log and log lines',
  async (t) => {
    const collector = await drainCollector();
    t.teardown(() => collector.close());
    const dir = await mkdtemp(join(tmpdir(), 'gw-bounds-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const config = join(dir, 'gateway.toml');
    await writeFile(
      config,
      baseConfig(`[providers.mock]
models = ["mock-a"]

[extensions.otel]
endpoint = "${collector.endpoint}"
schedule_delay_ms = 20
metrics_interval_ms = 200

[extensions.request_log]

[extensions.logging]
level = "info"
`),
    );
    // info: the core's request lines too (a Gemini route's path carries the model)
    const gw = await spawnGateway(['serve', '--config', config], { env: { LOG_LEVEL: 'info' } });
    t.teardown(async () => {
      gw.child.kill('SIGTERM');
      await gw.exited;
    });
    const pid = gw.child.pid!;
    // warm: the code paths, the heap's first growth, a few refusals of short names
    t.deepEqual(await hammer(gw.url, OK_BODY, { ms: 10_000, max: 200, concurrency: 4 }), { 200: 200 });
    await hammer(gw.url, HUGE_MODEL_BODY, { ms: 10_000, max: 4, concurrency: 2 });
    const before = await rssMb(pid);

    // 20 new traces a second enter the recent list: the 300 take a few seconds, and a slower
    // machine only lets more of them in
    const statuses = await hammer(gw.url, HUGE_MODEL_BODY, { ms: 60_000, max: 300, concurrency: 3 });
    const after = await rssMb(pid);
    const sent = Object.values(statuses).reduce((a, b) => a + b, 0);
    t.deepEqual(Object.keys(statuses), ['400'], JSON.stringify(statuses));
    t.log(`${sent} requests with 1 MiB model names: gw RSS ${before.toFixed(0)} MB → ${after.toFixed(0)} MB (+${(after - before).toFixed(0)} MB)`);
    // what a megabyte per kept span would take, with room for the heap's transient growth
    t.true(after - before < 100, `RSS grew by ${(after - before).toFixed(0)} MB`);

    const spans = await admin(gw.url, '/v1/otel/spans?limit=200');
    t.is(spans.status, 200, (await spans.clone().text()).slice(0, 200));
    const traces = (await spans.json()) as Array<{ spans: Array<{ attributes: Record<string, unknown> }> }>;
    const refused = traces.map((x) => x.spans[0]!.attributes).filter((a) => a['http.response.status_code'] === 400);
    t.true(refused.length >= 20, `${refused.length} refused traces listed`);
    for (const a of refused) {
      t.is(a['gw.model'], `${'m'.repeat(256)}…`);
      t.deepEqual(a['gw.truncated'], ['gw.model']);
    }

    const log = (await (await admin(gw.url, '/v1/requests?limit=1')).json()) as Array<Record<string, unknown>>;
    t.is(log[0]!.status, 400);
    t.is(log[0]!.model, `${'m'.repeat(256)}…`);
    t.deepEqual(log[0]!.truncated, ['model']);
    const gemini = await fetch(`${gw.url}/v1beta/models/${'g'.repeat(8000)}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    t.is(gemini.status, 400);
    await new Promise((r) => setTimeout(r, 200));
    const lines = gw.stdout().split('\n');
    t.true(
      lines.some((l) => l.includes(`"path":"/v1beta/models/${'g'.repeat(100)}`)),
      'the request line names the path, cut',
    );
    let longest = 0;
    for (const line of lines) longest = Math.max(longest, line.length);
    t.true(longest < 4096, `longest log line: ${longest} characters`);
  },
);

test('made-up model names never become metric series: Prometheus counts them under model="", the OTLP server metrics under _OTHER', async (t) => {
  const LIMITED = 'sk-limited-key-000000000000000000';
  const { rx, gw } = await setupOtel(
    t,
    (_r, res) => replyJson(res, 200, COMPLETION),
    (o) => localProvider(o, ['gpt-4o']),
    { extra: `[keys.limited]\nkey = "${LIMITED}"\nmodels = ["gpt-*"]\n` },
  );
  t.is((await post(`${gw.baseURL}/chat/completions`, { model: 'gpt-4o', messages: HI })).status, 200);
  for (let i = 0; i < 200; i++) t.is((await post(`${gw.baseURL}/chat/completions`, { model: `made-up-${i}`, messages: HI })).status, 404);
  // a key limited to gpt-*: a made-up name is refused before anything looks it up
  for (let i = 0; i < 20; i++)
    t.is((await post(`${gw.baseURL}/chat/completions`, { model: `denied-${i}`, messages: HI }, { authorization: `Bearer ${LIMITED}` })).status, 403);

  const prom = await (await admin(gw.url, '/metrics')).text();
  const series = [...prom.matchAll(/^gw_requests_total\{([^}]*)\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])] as const);
  t.deepEqual(
    series.filter(([labels]) => /status="40[34]"/.test(labels)).map(([labels, n]) => [/model="([^"]*)"/.exec(labels)![1], n]),
    [
      ['', 200],
      ['', 20],
    ],
  );

  const metric = 'gen_ai.server.request.duration';
  const deadline = Date.now() + 10_000;
  const counted = () => rx.points.filter((p) => p.metric === metric).reduce((n, p) => n + p.count, 0);
  while (counted() < 221 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const models = new Set(rx.points.filter((p) => p.metric === metric).map((p) => p.attributes['gen_ai.request.model']));
  t.deepEqual([...models].sort(), ['_OTHER', 'gpt-4o']);
  t.is(counted(), 221);
});
