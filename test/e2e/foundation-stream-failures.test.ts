/**
 * Foundation: streams that go wrong after the first chunk (one `data: {"error": …}` event,
 * then the end) and a client that disconnects mid-stream (the upstream request is closed
 * within 1 s). Raw fetch, reading the SSE text.
 */
import test from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, replySse, startUpstream, type Handler } from '../helpers/upstream.ts';

const SSE = fixture('openai/vercel-ai/openai-text.sse');
const EVENTS = SSE.split('\n\n').filter((e) => e.trim());

async function setup(t: import('ava').ExecutionContext, handler: Handler, provider = '') {
  const up = await startUpstream(handler);
  const gw = await startGateway(
    baseConfig(`[providers.up]\napi_key = "sk-up-0123456789"\nbase_url = "${up.origin}/v1"\nmodels = ["gpt-4o-mini"]\nmax_retries = 0\n${provider}`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw };
}

function streamRequest(url: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    signal,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
  });
}

/** The events of an SSE text (without the blank-line separators). */
function events(text: string): string[] {
  return text.split('\n\n').filter((e) => e.trim());
}

/** Asserts: the first `n` upstream events, then exactly one error event, then the end. */
function assertErrorAfter(t: import('ava').ExecutionContext, text: string, n: number, status: number): Record<string, unknown> {
  const got = events(text);
  t.is(got.length, n + 1, text.slice(-500));
  t.deepEqual(got.slice(0, n), EVENTS.slice(0, n));
  const last = got.at(-1)!;
  t.true(last.startsWith('data: {"error":'), last);
  t.false(text.includes('data: [DONE]'));
  t.true(text.endsWith('\n\n'));
  const error = (JSON.parse(last.slice(6)) as { error: Record<string, unknown> }).error;
  t.is(typeof error.message, 'string');
  t.is(typeof error.type, 'string');
  t.true('code' in error && 'param' in error);
  t.is(status, 200);
  return error;
}

test('upstream cut after 2 chunks without [DONE]: the client gets them, one error event, then the end', async (t) => {
  const { gw } = await setup(t, (_r, res) => replySse(res, SSE, { cutAfter: 2, delayMs: 30 }));
  const r = await streamRequest(gw.url);
  const error = assertErrorAfter(t, await r.text(), 2, r.status);
  t.is(error.type, 'upstream_error');
});

test('upstream ends cleanly after 2 chunks but without [DONE]: one error event', async (t) => {
  const { gw } = await setup(t, (_r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${EVENTS[0]}\n\n${EVENTS[1]}\n\n`);
  });
  const r = await streamRequest(gw.url);
  const error = assertErrorAfter(t, await r.text(), 2, r.status);
  t.is(error.code, 'upstream_truncated');
});

test('an upstream error event mid-stream becomes one gw error event carrying its message', async (t) => {
  const { gw } = await setup(t, (_r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${EVENTS[0]}\n\n${EVENTS[1]}\n\ndata: {"error":{"message":"The model overloaded","type":"server_error","code":"overloaded"}}\n\n`);
  });
  const r = await streamRequest(gw.url);
  const error = assertErrorAfter(t, await r.text(), 2, r.status);
  t.regex(error.message as string, /The model overloaded/);
});

test('a gap between chunks longer than timeout_seconds: one error event with the timeout', async (t) => {
  const { gw } = await setup(
    t,
    (_r, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`${EVENTS[0]}\n\n`);
      // then silence: the gateway's 0.3 s gap timeout must fire
    },
    'timeout_seconds = 0.3\n',
  );
  const t0 = performance.now();
  const r = await streamRequest(gw.url);
  const error = assertErrorAfter(t, await r.text(), 1, r.status);
  t.is(error.type, 'timeout_error');
  t.true(performance.now() - t0 < 2000);
});

test('client disconnect mid-stream: the upstream request is closed within 1 s', async (t) => {
  const { up, gw } = await setup(t, (_r, res) => replySse(res, SSE, { delayMs: 50 }));
  const ac = new AbortController();
  const r = await streamRequest(gw.url, ac.signal);
  const reader = r.body!.getReader();
  const first = await reader.read();
  t.true(new TextDecoder().decode(first.value).startsWith('data: {'));
  t.is(up.aborted.length, 0);
  ac.abort();
  const t0 = Date.now();
  while (up.aborted.length === 0 && Date.now() - t0 < 1000) await new Promise((res) => setTimeout(res, 10));
  t.is(up.aborted.length, 1, 'upstream connection still open 1 s after the client left');
  // the gateway keeps serving
  const again = await fetch(`${gw.url}/health`);
  t.is(again.status, 200);
});
