import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KEEP_ALIVE_MS, SseWriter } from '../../lib/http/sse-write.ts';

test('the keep-alive comment goes out after a period of silence, and not while events flow', async (t) => {
  t.is(KEEP_ALIVE_MS, 15_000);
  const period = 150;
  const server = createServer((_req, res) => {
    const sse = new SseWriter(res);
    sse.open({}, undefined, period);
    // events every 50 ms for 300 ms (no ping expected), then 400 ms of silence (pings expected)
    let n = 0;
    const tick = setInterval(() => {
      if (n < 6) void sse.data(JSON.stringify({ n: n++ }));
    }, 50);
    setTimeout(() => {
      clearInterval(tick);
      sse.end();
    }, 700);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  t.is(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const body = await res.text();
  const frames = body.split('\n\n').filter(Boolean);
  const firstPing = frames.indexOf(': ping');
  t.true(firstPing >= 6, `no ping while data flowed: ${JSON.stringify(frames)}`);
  t.true(frames.filter((f) => f === ': ping').length >= 1);
  t.true(frames.filter((f) => f === ': ping').length <= 4);
});

test('a payload that arrived on several data: lines is re-framed one data: line each', async (t) => {
  const { dataField } = await import('../../lib/http/sse-write.ts');
  t.is(dataField('{"a":1}'), 'data: {"a":1}');
  t.is(dataField('{\n"a": 1\n}'), 'data: {\ndata: "a": 1\ndata: }');
});
