/**
 * The otel extension when the collector is not well: a collector that hangs costs requests
 * no latency, 10,000 requests keep memory bounded (the queue is bounded; what does not fit is
 * dropped) and every dropped span is counted in /metrics; a collector that is down loses
 * exactly the spans it was sent, counted; `sampling_ratio = 0` sends no span (a sampled
 * parent is still followed).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import test from 'ava';
import { Pool } from 'undici';
import { ADMIN_TOKEN, KEY } from '../helpers/gateway.ts';
import { startReceiver } from '../helpers/otlp-receiver.ts';
import { replyJson } from '../helpers/upstream.ts';
import { localProvider, post, setupOtel } from './otel-helpers.ts';

const COMPLETION = {
  id: 'c-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};
const BODY = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });

/** `gw_otel_*` samples of a /metrics scrape, by name and labels. */
async function otelMetrics(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^(gw_otel_[a-z_]+(?:\{[^}]*\})?) (\S+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

/** Sends `n` chat requests, `concurrency` at a time; resolves with each request's latency (ms). */
async function load(origin: string, n: number, concurrency: number): Promise<number[]> {
  const pool = new Pool(origin, { connections: concurrency });
  const times: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const t0 = performance.now();
      const r = await pool.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: BODY,
      });
      await r.body.text();
      if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}`);
      times.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await pool.close();
  return times;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test('a hanging collector: requests keep their latency, 10,000 requests keep memory bounded, every dropped span is counted', async (t) => {
  const upstream = (_r: unknown, res: Parameters<typeof replyJson>[0]) => replyJson(res, 200, COMPLETION);
  const healthy = await setupOtel(t, upstream, (o) => localProvider(o, ['m']), { otel: 'metrics = false' });
  const hanging = await setupOtel(t, upstream, (o) => localProvider(o, ['m']), {
    mode: 'hang',
    // an export times out after 2 s: the queue drains at most 64 spans/s, so any machine's
    // load fills it (at 300 ms a slow runner's ~160 requests/s never did)
    otel: 'metrics = false\nmax_queue_size = 256\nmax_export_batch_size = 128\nexport_timeout_ms = 2000',
  });
  // latency beside a healthy collector, the two interleaved so both see the same machine
  await load(healthy.gw.url, 100, 8);
  await load(hanging.gw.url, 100, 8);
  const base: number[] = [];
  const hung: number[] = [];
  for (let round = 0; round < 3; round++) {
    base.push(...(await load(healthy.gw.url, 100, 8)));
    hung.push(...(await load(hanging.gw.url, 100, 8)));
  }
  t.log(`median latency: healthy collector ${median(base).toFixed(2)} ms, hanging collector ${median(hung).toFixed(2)} ms`);
  t.true(median(hung) < median(base) * 2 + 2, `${median(hung)} vs ${median(base)}`);
  t.true(hanging.rx.requests.length > 0, 'exports were attempted and hung');

  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  const n = 10_000;
  const t0 = performance.now();
  await load(hanging.gw.url, n, 64);
  t.log(`${n} requests in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  gc();
  const grown = (process.memoryUsage().heapUsed - before) / 1048576;
  t.log(`heap growth over ${n} requests: ${grown.toFixed(1)} MiB`);
  t.true(grown < 40, `heap grew ${grown.toFixed(1)} MiB`);

  const sent = 2 * (n + 100 + 300); // a SERVER and a CLIENT span per request, warm-up and latency rounds included
  let m = await otelMetrics(hanging.gw.url);
  t.is(m.gw_otel_spans_exported_total, 0);
  t.true(m.gw_otel_span_queue_size! <= 256);
  // the exports in flight time out too: then every span sent is counted as dropped
  const dropped = () => m['gw_otel_spans_dropped_total{reason="queue_full"}']! + m['gw_otel_spans_dropped_total{reason="export_failed"}']!;
  for (let i = 0; i < 300 && dropped() < sent; i++) {
    await new Promise((r) => setTimeout(r, 50));
    m = await otelMetrics(hanging.gw.url);
  }
  t.is(dropped(), sent);
  t.is(m.gw_otel_span_queue_size, 0);
  t.true(m['gw_otel_spans_dropped_total{reason="queue_full"}']! > 0);
});

test('a collector that is down: each span sent is counted as dropped (export_failed), the requests all succeed', async (t) => {
  const gone = await startReceiver();
  await gone.close();
  const { gw } = await setupOtel(
    t,
    (_r, res) => replyJson(res, 200, COMPLETION),
    (o) => localProvider(o, ['m']),
    {
      endpoint: gone.endpoint,
      otel: 'metrics = false\nexport_timeout_ms = 200',
    },
  );
  for (let i = 0; i < 25; i++) t.is((await post(`${gw.baseURL}/chat/completions`, JSON.parse(BODY))).status, 200);
  let m: Record<string, number> = {};
  for (let i = 0; i < 100; i++) {
    m = await otelMetrics(gw.url);
    if (m['gw_otel_spans_dropped_total{reason="export_failed"}'] === 50) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  t.is(m['gw_otel_spans_dropped_total{reason="export_failed"}'], 50);
  t.is(m['gw_otel_spans_dropped_total{reason="queue_full"}'], 0);
  t.is(m.gw_otel_spans_exported_total, 0);
});

test('sampling_ratio = 0 sends no span, yet each upstream call gets an unsampled child traceparent of the answer’s trace; a sampled traceparent from the client is still followed', async (t) => {
  const { up, rx, gw } = await setupOtel(
    t,
    (_r, res) => replyJson(res, 200, COMPLETION),
    (o) => localProvider(o, ['m']),
    {
      otel: 'metrics = false\nsampling_ratio = 0',
    },
  );
  const traces: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await post(`${gw.baseURL}/chat/completions`, JSON.parse(BODY));
    t.is(r.status, 200);
    traces.push(r.headers.get('x-gw-trace-id') ?? '');
    t.regex(traces[i]!, /^[0-9a-f]{32}$/);
    t.regex(String(up.received[i]!.headers.traceparent), new RegExp(`^00-${traces[i]}-[0-9a-f]{16}-00$`));
  }
  t.is(new Set(traces).size, 20);
  await new Promise((r) => setTimeout(r, 200));
  t.is(rx.spans.length, 0);
  t.is(rx.requests.filter((q) => q.path === '/v1/traces').length, 0);
  const trace = 'a'.repeat(32);
  const r = await post(`${gw.baseURL}/chat/completions`, JSON.parse(BODY), { traceparent: `00-${trace}-${'b'.repeat(16)}-01` });
  t.is(r.status, 200);
  await rx.waitForSpans(2);
  t.true(rx.spans.every((s) => s.traceId === trace));
});
