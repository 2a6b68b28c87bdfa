/**
 * Upstream concurrency (issue 14): no hidden cap by default; a provider's `max_connections`
 * queues past the cap in the open (metrics, -vv log), and the time queued counts toward
 * `timeout_seconds`.
 */
import test from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { replySse, startUpstream, toSse } from '../helpers/upstream.ts';
import { json } from '../helpers/ext-helpers.ts';
import { scrape, value } from './metrics-helpers.ts';

const chunk = (content: string) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'm',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});
const DONE = {
  id: 'c',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'm',
  choices: [],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

/** An upstream whose streams last `ms`, counting how many it serves at once. */
async function slowUpstream(ms: number) {
  let now = 0;
  const stats = { peak: 0 };
  const up = await startUpstream(async (_req, res) => {
    stats.peak = Math.max(stats.peak, ++now);
    await replySse(res, toSse([chunk('a'), chunk('b'), DONE]), { delayMs: ms / 3 });
    now--;
  });
  return { up, stats };
}

const stream = (url: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });

test('without max_connections, 600 concurrent streams reach the upstream at once (no hidden cap)', async (t) => {
  // every answer waits until more than 512 requests are open at the upstream at once (the old
  // pool's cap; bounded at 30 s), so a loaded machine cannot make the streams miss each other
  let open = 0;
  let peak = 0;
  let release!: () => void;
  const enough = new Promise<void>((r) => (release = r));
  const bound = setTimeout(release, 30_000);
  const up = await startUpstream(async (_req, res) => {
    peak = Math.max(peak, ++open);
    if (open > 512) release();
    await enough;
    await replySse(res, toSse([chunk('a'), chunk('b'), DONE]));
    open--;
  });
  const gw = await startGateway(baseConfig(`[providers.p]\nkind = "openai"\napi_key = "k"\nbase_url = "${up.origin}/v1"\nmodels = ["m"]\n`));
  t.teardown(async () => {
    clearTimeout(bound);
    release();
    await gw.stop();
    await up.close();
  });
  const rs = await Promise.all(Array.from({ length: 600 }, () => stream(gw.url).then((r) => r.text())));
  t.true(rs.every((x) => x.endsWith('data: [DONE]\n\n')));
  t.true(peak > 512, `peak ${peak}: the old pool capped an origin at 512`);
});

test('max_connections queues the rest in the open: every stream finishes, the upstream never sees more, the wait is measured', async (t) => {
  const { up, stats } = await slowUpstream(300);
  const gw = await startGateway(
    baseConfig(`[providers.p]\nkind = "openai"\napi_key = "k"\nbase_url = "${up.origin}/v1"\nmodels = ["m"]\nmax_connections = 2\n`),
    { level: 'debug' },
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const pending = Array.from({ length: 6 }, () => stream(gw.url).then((r) => r.text()));
  await new Promise((r) => setTimeout(r, 100));
  const during = await scrape(gw.url);
  t.is(value(during, 'gw_upstream_queue_depth', { provider: 'p' }), 4);
  const rs = await Promise.all(pending);
  t.true(rs.every((x) => x.endsWith('data: [DONE]\n\n')));
  t.is(stats.peak, 2);
  const after = await scrape(gw.url);
  t.is(value(after, 'gw_upstream_queue_depth', { provider: 'p' }), 0);
  t.is(value(after, 'gw_upstream_queue_wait_seconds_count', { provider: 'p' }), 4);
  t.true(value(after, 'gw_upstream_queue_wait_seconds_sum', { provider: 'p' }) > 0.5);
  t.true(
    gw.logs.some((l) => l.includes('waited for an upstream connection slot')),
    'the -vv log says so',
  );
});

test('time queued counts toward timeout_seconds: past it, 504 saying the request was queued', async (t) => {
  const { up } = await slowUpstream(1500);
  const gw = await startGateway(
    baseConfig(
      `[providers.p]\nkind = "openai"\napi_key = "k"\nbase_url = "${up.origin}/v1"\nmodels = ["m"]\nmax_connections = 1\ntimeout_seconds = 0.4\nmax_retries = 0\n`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const first = stream(gw.url);
  await new Promise((r) => setTimeout(r, 50));
  const second = await stream(gw.url);
  t.is(second.status, 504);
  t.regex((await json(second)).error.message, /queued behind max_connections = 1/);
  await (await first).text();
});
