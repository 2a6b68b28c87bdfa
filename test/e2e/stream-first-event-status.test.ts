import test from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { replySse, startUpstream } from '../helpers/upstream.ts';

// An upstream 4xx keeps its status (docs/design.md "Errors") even when the vendor reports it as
// the first event of a 200 stream: nothing was sent yet, so the client gets a real 429.
const post = (url: string, model: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });

test('a rate-limit error as the first stream event answers 429 (anthropic and gemini); an overload answers 502', async (t) => {
  const anthropic = await startUpstream((r, res) => {
    const type = r.json.model === 'claude-busy' ? 'overloaded_error' : 'rate_limit_error';
    return replySse(res, `event: error\ndata: {"type":"error","error":{"type":"${type}","message":"slow down"}}\n\n`);
  });
  const gemini = await startUpstream((_r, res) => replySse(res, 'data: {"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}\r\n\r\n'));
  const gw = await startGateway(
    baseConfig(
      `[providers.anthropic]\napi_key = "sk-a-0123456789"\nbase_url = "${anthropic.origin}"\nmax_retries = 0\nmodels = ["claude-x", "claude-busy"]\n[providers.gemini]\napi_key = "g-0123456789"\nbase_url = "${gemini.origin}"\nmax_retries = 0\nmodels = ["gemini-x"]\n`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await anthropic.close();
    await gemini.close();
  });
  const a = await post(gw.url, 'claude-x');
  t.is(a.status, 429);
  t.regex(((await a.json()) as any).error.message, /slow down/);
  const g = await post(gw.url, 'gemini-x');
  t.is(g.status, 429);
  t.regex(((await g.json()) as any).error.message, /quota/);
  const busy = await post(gw.url, 'claude-busy');
  t.is(busy.status, 502);
  t.is(((await busy.json()) as any).error.upstream_status, 529);
});

test('Messages passthrough: an overload as the first event is retried, and the abandoned upstream stream is closed', async (t) => {
  const ok =
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}\n\n' +
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}\n\n' +
    'event: message_stop\ndata: {"type":"message_stop"}\n\n';
  let n = 0;
  const up = await startUpstream((_r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // the first answer never ends by itself: only gw letting go of it closes the connection
    if (n++ === 0) res.write('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
    else res.end(ok);
  });
  const gw = await startGateway(
    baseConfig(`[providers.anthropic]\napi_key = "sk-a-0123456789"\nbase_url = "${up.origin}"\nmax_retries = 1\nmodels = ["claude-x"]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-x', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.is(r.status, 200);
  t.is(await r.text(), ok);
  t.is(up.received.length, 2);
  for (let i = 0; i < 50 && up.aborted.length === 0; i++) await new Promise((res) => setTimeout(res, 20));
  t.is(up.aborted.length, 1, 'the abandoned first stream was closed');
});

test('Messages passthrough: an invalid_request_error as the first event keeps its 400 and is not retried', async (t) => {
  const up = await startUpstream((_r, res) =>
    replySse(res, 'event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"bad thinking budget"}}\n\n'),
  );
  const gw = await startGateway(baseConfig(`[providers.anthropic]\napi_key = "sk-a-0123456789"\nbase_url = "${up.origin}"\nmodels = ["claude-x"]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-x', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.is(r.status, 400);
  t.deepEqual(await r.json(), { type: 'error', error: { type: 'invalid_request_error', message: 'provider anthropic: bad thinking budget' } });
  t.is(up.received.length, 1);
});
