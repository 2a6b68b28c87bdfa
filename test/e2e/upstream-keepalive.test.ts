import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { startUpstream, toSse } from '../helpers/upstream.ts';

const chunk = (content: string | null, finish: string | null = null) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }],
});
const MESSAGES_SSE = [
  [
    'message_start',
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    },
  ],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }],
  ['message_stop', { type: 'message_stop' }],
]
  .map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`)
  .join('');

/**
 * An upstream that keeps connections alive (the test helper's 1 s keep-alive is below
 * undici's reuse threshold) and ends each stream 100 ms after its last event, as real
 * servers do when the chunked terminator goes out in its own write.
 */
async function keepAliveUpstream(body: (req: IncomingMessage) => string) {
  const sockets = new Set<unknown>();
  const server = createServer((req, res) => {
    sockets.add(req.socket);
    req.resume();
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(body(req));
      await new Promise((r) => setTimeout(r, 100));
      res.end();
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    sockets,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

test('a complete common-format stream ([DONE]) leaves its upstream connection pooled for the next request', async (t) => {
  const up = await keepAliveUpstream(() => toSse([chunk('a'), chunk(null, 'stop')]));
  const gw = await startGateway(baseConfig(`[providers.a]\napi_key = "x"\nbase_url = "${up.origin}/v1"\nmodels = ["m"]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  for (let i = 0; i < 4; i++) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    t.true((await r.text()).endsWith('data: [DONE]\n\n'));
    await new Promise((r) => setTimeout(r, 150)); // the previous body has ended meanwhile
  }
  t.is(up.sockets.size, 1, 'one keep-alive connection served every stream');
});

test('a complete Messages passthrough stream (message_stop) leaves its upstream connection pooled', async (t) => {
  const up = await keepAliveUpstream(() => MESSAGES_SSE);
  const gw = await startGateway(baseConfig(`[providers.anthropic]\napi_key = "x"\nbase_url = "${up.origin}"\nmodels = ["claude"]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  for (let i = 0; i < 4; i++) {
    const r = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    t.true((await r.text()).includes('event: message_stop'));
    await new Promise((r) => setTimeout(r, 150)); // the previous body has ended meanwhile
  }
  t.is(up.sockets.size, 1, 'one keep-alive connection served every stream');
});

test('a Messages passthrough stream ended by an upstream error event releases the upstream connection', async (t) => {
  const events =
    MESSAGES_SSE.split('\n\n').slice(0, 3).join('\n\n') +
    '\n\nevent: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
  // the upstream never ends the response: only gw letting go of the body frees the connection
  const up = await startUpstream((_r, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(events);
  });
  const gw = await startGateway(baseConfig(`[providers.anthropic]\napi_key = "x"\nbase_url = "${up.origin}"\nmodels = ["claude"]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const text = await r.text();
  t.true(text.includes('event: error'));
  for (let i = 0; i < 50 && up.aborted.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.is(up.aborted.length, 1, 'the upstream connection was closed');
});
