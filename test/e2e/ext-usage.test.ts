import test from 'ava';
import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { estimateTokens } from '../../lib/common/estimate.ts';
import { baseConfig, spawnGateway, startGateway } from '../helpers/gateway.ts';
import { admin, client, gatewayWith, HI, KEY, KEY2, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';

/** Usage the upstream reports, derived from the request so every call differs. */
const usageOf = (json: any) => ({
  prompt_tokens: 10 + String(json?.messages?.[0]?.content ?? json?.input ?? '').length,
  completion_tokens: json?.max_tokens ?? 5,
});

test('usage: totals per key and canonical model equal what the upstream reported — chat, stream (with and without include_usage), embeddings, /v1/messages', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const gw = await gatewayWith(t, up, '[aliases]\ngpt4 = "gpt-4o"\n\n[extensions.usage]\n');
  const c = client(gw);
  const c2 = client(gw, KEY2);
  const a = await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'abc' }], max_tokens: 7 }); // 13 + 7
  const b = await c.chat.completions.create({ model: 'gpt4', messages: [{ role: 'user', content: 'abcdef' }], max_tokens: 3 }); // alias: 16 + 3
  let streamed: { prompt_tokens: number; completion_tokens: number } | undefined;
  const s1 = await c.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'x' }],
    max_tokens: 4,
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const ch of s1) if (ch.usage) streamed = ch.usage; // 11 + 4
  const s2 = await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'yy' }], max_tokens: 2, stream: true });
  for await (const ch of s2) t.falsy(ch.usage); // 12 + 2, client never sees it
  const e = await c2.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' }); // 15
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: KEY2, maxRetries: 0 });
  const m = await anthropic.messages.create({ model: 'gpt-4o', max_tokens: 9, messages: [{ role: 'user', content: 'mm' }] }); // translated: 12 + 9
  t.is(a.usage!.prompt_tokens, 13);
  t.is(b.usage!.prompt_tokens, 16);
  t.deepEqual([streamed!.prompt_tokens, streamed!.completion_tokens], [11, 4]);
  t.is(e.usage.prompt_tokens, 15);
  t.deepEqual([m.usage.input_tokens, m.usage.output_tokens], [12, 9]);

  const r = await admin(gw, 'GET', '/v1/usage');
  t.is(r.status, 200);
  t.true(Array.isArray(r.body));
  const pick = (key: string, model: string) => r.body.find((x: any) => x.key === key && x.model === model);
  t.like(pick('default', 'gpt-4o'), { prompt_tokens: 13 + 16 + 11 + 12, completion_tokens: 7 + 3 + 4 + 2, requests: 4 });
  t.like(pick('second', 'text-embedding-3-small'), { prompt_tokens: 15, completion_tokens: 0, requests: 1 });
  t.like(pick('second', 'gpt-4o'), { prompt_tokens: 12, completion_tokens: 9, requests: 1 });
  t.is(r.body.length, 3);
  t.false(JSON.stringify(r.body).includes(KEY));
  t.is((await admin(gw, 'GET', '/v1/usage', KEY)).status, 403);
});

test('usage: a failed upstream call counts nothing; a stream cut mid-way counts what it streamed, estimated (docs/design.md)', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const gw = await gatewayWith(t, up, '[extensions.usage]\n');
  await client(gw).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a' }], max_tokens: 1 });
  up.handle((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"boom"}}');
  });
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: HI })).status, 502);
  up.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"par"},"finish_reason":null}]}\n\n',
    );
    setTimeout(() => res.socket?.destroy(), 20);
  });
  const body = { model: 'gpt-4o', messages: HI, stream: true };
  const cut = await post(gw, '/v1/chat/completions', body);
  t.regex(await cut.text(), /"error"/);
  const r = await admin(gw, 'GET', '/v1/usage');
  // no usage reported before the cut: the prompt estimate, and "par" (3 bytes: 1 token)
  t.deepEqual(
    r.body.map((x: any) => [x.key, x.model, x.prompt_tokens, x.completion_tokens, x.requests, x.estimated_requests]),
    [['default', 'gpt-4o', 11 + estimateTokens(body), 1 + 1, 2, 1]],
  );
});

test('usage: kept across a graceful restart on the same data dir', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const dir = await mkdtemp(join(tmpdir(), 'gw-usage-'));
  t.teardown(async () => {
    await up.close();
    await rm(dir, { recursive: true, force: true });
  });
  const toml = baseConfig(`${providerSection(up)}\n[extensions.usage]\n`);
  const gw1 = await startGateway(toml, { dir });
  await client(gw1).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'abc' }], max_tokens: 2 });
  await gw1.stop();
  const gw2 = await startGateway(toml, { dir });
  t.teardown(() => gw2.stop());
  t.like((await admin(gw2, 'GET', '/v1/usage')).body[0], { key: 'default', model: 'gpt-4o', prompt_tokens: 13, completion_tokens: 2 });
  await client(gw2).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'abc' }], max_tokens: 2 });
  t.like((await admin(gw2, 'GET', '/v1/usage')).body[0], { prompt_tokens: 26, completion_tokens: 4, requests: 2 });
});

test('usage: kept across kill -9 — every answered request, stream and non-stream', async (t) => {
  const up = await openaiUpstream({ usageOf });
  const dir = await mkdtemp(join(tmpdir(), 'gw-usage-kill-'));
  const config = join(dir, 'gateway.toml');
  await writeFile(config, baseConfig(`${providerSection(up)}\n[extensions.usage]\n`));
  const kids: Array<Awaited<ReturnType<typeof spawnGateway>>> = [];
  t.teardown(async () => {
    for (const k of kids)
      if (k.child.exitCode === null && k.child.signalCode === null) {
        k.child.kill('SIGKILL');
        await k.exited;
      }
    await up.close();
    await rm(dir, { recursive: true, force: true });
  });
  const first = await spawnGateway(['--config', config]);
  kids.push(first);
  const c = client({ baseURL: `${first.url}/v1` } as any);
  await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'abc' }], max_tokens: 2 }); // 13 + 2
  const s = await c.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'abcd' }], max_tokens: 3, stream: true }); // 14 + 3
  for await (const _ of s) {
    /* drain: the answer is complete once [DONE] arrived */
  }
  first.child.kill('SIGKILL');
  t.is(await first.exited, 'SIGKILL');
  const second = await spawnGateway(['--config', config]);
  kids.push(second);
  const r = await admin(second, 'GET', '/v1/usage');
  t.deepEqual(r.body, [
    {
      key: 'default',
      model: 'gpt-4o',
      prompt_tokens: 27,
      completion_tokens: 5,
      total_tokens: 32,
      cached_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
      cache_hit_rate: 0,
      requests: 2,
      estimated_requests: 0,
    },
  ]);
});
