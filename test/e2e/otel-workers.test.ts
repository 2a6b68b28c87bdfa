/**
 * The otel extension under `gw serve --workers 2` on Redis: each worker exports its own
 * spans, under a resource of its own (`service.instance.id`), and every request's SERVER
 * span arrives exactly once.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Agent, fetch as undiciFetch } from 'undici';
import { baseConfig, KEY, spawnGateway } from '../helpers/gateway.ts';
import { startReceiver } from '../helpers/otlp-receiver.ts';
import { redisFor } from '../helpers/redis.ts';
import { HI, openaiUpstream, providerSection } from '../helpers/ext-helpers.ts';
import { SERVER } from './otel-helpers.ts';

test('--workers 2: each worker exports its own spans under its own service.instance.id, every request once', async (t) => {
  const redis = await redisFor(t);
  if (!redis) return;
  const up = await openaiUpstream();
  const rx = await startReceiver();
  const dir = await mkdtemp(join(tmpdir(), 'gw-otel-workers-'));
  t.teardown(async () => {
    await up.close();
    await rx.close();
    await rm(dir, { recursive: true, force: true });
  });
  const file = join(dir, 'gateway.toml');
  await writeFile(
    file,
    baseConfig(`${providerSection(up)}
[store]
url = "${redis.url}"

[extensions.otel]
endpoint = "${rx.endpoint}"
schedule_delay_ms = 20
metrics_interval_ms = 100
`),
  );
  const gw = await spawnGateway(['serve', '--config', file, '--workers', '2']);
  t.teardown(() => {
    if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
  });

  // a new connection per request: the primary hands connections to the workers in turn
  const N = 24;
  const ids = await Promise.all(
    Array.from({ length: N }, async () => {
      const dispatcher = new Agent({ pipelining: 0 });
      const r = await undiciFetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: HI }),
        dispatcher,
      });
      t.is(r.status, 200);
      await r.arrayBuffer();
      await dispatcher.close();
      return r.headers.get('x-gw-trace-id');
    }),
  );
  const deadline = Date.now() + 15_000;
  const servers = () => rx.spans.filter((s) => s.kind === SERVER);
  while (servers().length < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const got = servers();
  t.is(got.length, N, 'one SERVER span per request, none twice');
  t.deepEqual(got.map((s) => s.traceId).sort(), [...ids].sort(), 'the traces are the ones the answers named');
  const byInstance = new Map<unknown, number>();
  for (const s of got) byInstance.set(s.resource['service.instance.id'], (byInstance.get(s.resource['service.instance.id']) ?? 0) + 1);
  t.is(byInstance.size, 2, `two exporting processes: ${[...byInstance.entries()].map(([k, v]) => `${String(k)}=${v}`).join(', ')}`);
  for (const [id, n] of byInstance) {
    t.regex(String(id), /^[0-9a-f-]{36}$/);
    t.true(n > 0);
  }
  t.true(got.every((s) => s.resource['service.name'] === 'gw'));
});
