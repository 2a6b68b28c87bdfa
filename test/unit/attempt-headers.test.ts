/**
 * The headers an onUpstreamStart tap sets (a child `traceparent`) reach every upstream
 * request of that attempt and of no other: the attempt runs in an AsyncLocalStorage that
 * holds them (lib/http/attempt-headers.ts), read by the upstream client. Concurrent requests
 * interleave their attempts across awaits, so each must still send its own.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { RequestContext } from '../../core/context.ts';
import { createHooks } from '../../core/hooks.ts';
import { observeAttempt } from '../../core/pipeline/observe-attempt.ts';
import { createUpstreamClient } from '../../lib/http/client.ts';
import { createAgent } from '../../lib/http/upstream.ts';
import type { Provider } from '../../lib/provider.ts';
import { createLogger } from '../../server/log.ts';

const REQUESTS = 20;

test('each attempt sends its own headers on every upstream request it makes, and nothing after it ended', async (t) => {
  const seen = new Map<string, Array<string | undefined>>();
  const server = createServer((req: IncomingMessage, res) => {
    const id = req.url!.split('/')[2]!;
    seen.set(id, [...(seen.get(id) ?? []), req.headers.traceparent as string | undefined]);
    // answers at different times, so the attempts' awaits interleave
    setTimeout(() => res.end('{}'), Number(id) % 4);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = createAgent();
  const log = createLogger('error');
  const client = createUpstreamClient({ provider: 'p', dispatcher: agent, log, timeoutMs: 5000 });
  const hooks = createHooks();
  hooks.onUpstreamStart.tap('t', (rc, at) => {
    // odd requests' attempts get no headers: they must send none, whatever runs beside them
    if (Number(rc.id) % 2 === 0) at.headers = { traceparent: `tp-${rc.id}` };
  });
  const provider = { name: 'p', kind: 'openai' } as Provider;
  const facts = { route: 'chat', format: 'openai-chat', operation: 'generate' as const, model: 'm', stream: false };
  try {
    await Promise.all(
      Array.from({ length: REQUESTS }, async (_, i) => {
        const id = String(i);
        const rc = new RequestContext(id, facts, undefined, {}, '{}', 'm', performance.now(), log);
        const signal = new AbortController().signal;
        const send = async () => (await client.send(`${base}/r/${id}`, { headers: { 'content-type': 'application/json' }, body: '{}', signal })).body.dump();
        await observeAttempt(hooks, rc, provider, 'm', 0, async () => {
          await sleep(i % 3);
          await send();
          await sleep(i % 2);
          await send();
        });
        // the attempt is over: a later request of the same request carries nothing of it
        await send();
      }),
    );
  } finally {
    await agent.close();
    await new Promise((r) => server.close(r));
  }
  for (let i = 0; i < REQUESTS; i++) {
    const own = i % 2 === 0 ? `tp-${i}` : undefined;
    t.deepEqual(seen.get(String(i)), [own, own, undefined], `request ${i}`);
  }
});
