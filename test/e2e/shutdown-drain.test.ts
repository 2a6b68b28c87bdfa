/**
 * Graceful shutdown waits for the requests it is still handling, not only for their sockets:
 * a client that left (timed out, was killed) before gw finished its hooks must still be
 * charged when gw stops right after. The store closes only once every handler is done
 * (within shutdown_timeout_seconds). An extension from npm whose taps take 300 ms runs before
 * the usage extension, so the charge lands well after the client's socket has closed.
 * Serial: the two share the tap-entry signal and the plugin package.
 */
import test, { type ExecutionContext } from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { tempPackage, uniqueName } from '../helpers/temp-plugin.ts';
import { fixture, fixtureJson, replyJson, startUpstream, type MockUpstream } from '../helpers/upstream.ts';

const DELAY_MS = 300;
/** The slow taps call globalThis[Symbol.for(ENTERED)] on entry (gw runs in this process). */
const ENTERED = 'gw.test.slow-tap-entered';

/** Resolves when a slow tap is next entered. */
function tapEntered(): Promise<void> {
  return new Promise((resolve) => {
    (globalThis as Record<symbol, unknown>)[Symbol.for(ENTERED)] = resolve;
  });
}

/** `gw-plugin-<name>`: an extension whose onResponse and onError taps each wait DELAY_MS. */
async function slowExtension(t: ExecutionContext): Promise<string> {
  const name = uniqueName('zz-slow');
  await tempPackage(
    t,
    name,
    `import { z } from 'zod';
const wait = () => {
  globalThis[Symbol.for('${ENTERED}')]?.();
  return new Promise((r) => setTimeout(r, ${DELAY_MS}));
};
export default {
  type: 'extension', name: 'slow', configSchema: z.object({}),
  setup({ hooks }) {
    hooks.onResponse.tapPromise('slow', wait);
    hooks.onError.tapPromise('slow', wait);
  },
};
`,
  );
  return name;
}

/** Chat JSON at once; a stream sends two recorded chunks, then holds until the client goes. */
async function upstream(): Promise<MockUpstream> {
  const chat = fixtureJson('openai/spec-examples/chat.default.response.json');
  const frames = fixture('openai/openai-node/chat.stream.include-usage.sse')
    .split('\n\n')
    .filter((f) => f.startsWith('data: {'));
  return startUpstream((req, res) => {
    if (!req.json?.stream) return replyJson(res, 200, { ...chat, usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`${frames[0]}\n\n${frames[1]}\n\n`);
  });
}

/** Sends a chat request and leaves (aborts): after a stream's first chunk, or once gw is in onResponse; resolves when it has left. */
async function clientLeaves(url: string, stream: boolean): Promise<void> {
  const ac = new AbortController();
  const entered = tapEntered();
  const res = fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream }),
    signal: ac.signal,
  });
  if (stream) {
    // the first chunk is through: the stream has started, so leaving now must be charged
    const r = await res;
    const reader = r.body!.getReader();
    await reader.read();
  } else {
    // the upstream has answered; gw is in the slow onResponse tap
    await entered;
  }
  ac.abort();
  await res.then(
    (r) => r.body?.cancel().catch(() => undefined),
    () => undefined,
  );
}

async function usageAfterRestart(t: ExecutionContext, stream: boolean): Promise<Array<Record<string, unknown>>> {
  const up = await upstream();
  t.teardown(() => up.close());
  const slow = await slowExtension(t);
  const dir = await mkdtemp(join(tmpdir(), 'gw-drain-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const toml = baseConfig(
    `[providers.up]\napi_key = "sk-upstream"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["gpt-4o"]\n\n[extensions.${slow}]\n\n[extensions.usage]\n`,
  );
  const gw = await startGateway(toml, { dir });
  await clientLeaves(gw.url, stream);
  // the client's socket is closed; gw is still in its hooks
  await new Promise((r) => setTimeout(r, 20));
  const started = performance.now();
  await gw.stop();
  t.true(performance.now() - started < 10_000, 'stop() is bounded');
  const again = await startGateway(toml, { dir });
  t.teardown(() => again.stop());
  const r = await fetch(`${again.url}/v1/usage`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.is(r.status, 200);
  return (await r.json()) as Array<Record<string, unknown>>;
}

test.serial('shutdown: a request whose client left during onResponse is still charged before the store closes', async (t) => {
  const usage = await usageAfterRestart(t, false);
  t.like(usage, [{ key: 'default', model: 'gpt-4o', prompt_tokens: 11, completion_tokens: 7, requests: 1, estimated_requests: 0 }]);
});

test.serial('shutdown: a stream the client left is charged for what it streamed before the store closes', async (t) => {
  const usage = await usageAfterRestart(t, true);
  t.is(usage.length, 1);
  t.like(usage[0], { key: 'default', model: 'gpt-4o', requests: 1, estimated_requests: 1 });
  t.true((usage[0]!.prompt_tokens as number) > 0);
});
