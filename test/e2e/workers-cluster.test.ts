import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, fetch as undiciFetch } from 'undici';
import { runCli } from '../helpers/cli.ts';
import { baseConfig, KEY, spawnGateway } from '../helpers/gateway.ts';
import { redisFor } from '../helpers/redis.ts';
import { fixture, replySse } from '../helpers/upstream.ts';
import { HI, openaiUpstream, providerSection } from '../helpers/ext-helpers.ts';
import { scrape, value } from './metrics-helpers.ts';

async function tempConfig(t: { teardown(f: () => Promise<void>): void }, toml: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-workers-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.toml');
  await writeFile(file, toml);
  return file;
}

/** Child pids of `pid` (the workers of a primary). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('--workers 2 with the LevelDB store is refused at once, naming [store]', async (t) => {
  const up = await openaiUpstream();
  t.teardown(() => up.close());
  const file = await tempConfig(t, baseConfig(providerSection(up)));
  const r = await runCli(['serve', '--config', file, '--workers', '2'], {}, { timeoutMs: 10_000 });
  t.is(r.code, 1);
  t.regex(r.stderr, /\[store\] url = "redis:\/\//);
  t.regex(r.stderr, /--workers 2/);
  t.notRegex(r.stdout, /listening on/);
  t.false(r.stderr.includes('internal error'));
});

// ~9 s alone (three Node processes from source and the store's 5 s start deadline); the bound
// is that it ends, not a speed: a CI run under the full suite's load once took over 15 s
test('--workers 2 with Redis unreachable: exits non-zero within 25 s, the error naming [store] printed once for all workers', async (t) => {
  const file = await tempConfig(t, baseConfig('[providers.mock]\nmodels = ["m"]\n\n[store]\nurl = "redis://127.0.0.1:1/0"\n'));
  const t0 = Date.now();
  const r = await runCli(['serve', '--config', file, '--workers', '2'], {}, { timeoutMs: 30_000 });
  t.true(Date.now() - t0 < 25_000, `took ${Date.now() - t0} ms`);
  t.is(r.code, 1);
  t.is(r.stderr.match(/\[store\]/g)?.length, 1, r.stderr);
  t.notRegex(r.stdout, /listening on/);
});

test('--workers must be a whole number', async (t) => {
  const r = await runCli(['serve', '--workers', 'two'], {}, { timeoutMs: 10_000 });
  t.not(r.code, 0);
  t.regex(r.stderr, /--workers/);
});

test('--workers 2 on Redis: one startup line, connections spread over both workers, one scrape counts every request, a killed worker is replaced, SIGHUP reloads every worker, SIGTERM drains a stream and stops all', async (t) => {
  const redis = await redisFor(t);
  if (!redis) return;
  const up = await openaiUpstream();
  t.teardown(() => up.close());
  const file = await tempConfig(t, baseConfig(`${providerSection(up)}\n[store]\nurl = "${redis.url}"\n`));
  const gw = await spawnGateway(['serve', '--config', file, '--workers', '2']);
  t.teardown(() => {
    if (gw.child.exitCode === null) gw.child.kill('SIGKILL');
  });
  const primary = gw.child.pid!;
  await sleep(300);
  t.is(gw.stdout().match(/listening on/g)?.length, 1, gw.stdout());
  // the spec's exact shape, as without --workers: scripts that wait for it keep matching
  t.regex(gw.stdout(), /^listening on 127\.0\.0\.1:\d+ \(\d+ models?, 1 provider, 0 extensions\)$/m);
  const workers = childrenOf(primary);
  t.is(workers.length, 2);

  // a new connection per request: the primary hands connections to the workers in turn
  const N = 40;
  const statuses = await Promise.all(
    Array.from({ length: N }, async () => {
      const dispatcher = new Agent({ pipelining: 0 });
      const r = await undiciFetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: HI }),
        dispatcher,
      });
      await r.arrayBuffer();
      await dispatcher.close();
      return r.status;
    }),
  );
  t.deepEqual(new Set(statuses), new Set([200]));
  // whichever worker answers the scrape, it reports both workers' requests
  for (let i = 0; i < 4; i++) {
    const m = await scrape(gw.url);
    t.is(value(m, 'gw_requests_total', { route: 'chat', model: 'gpt-4o', provider: 'up', status: '200' }), N);
    t.is(value(m, 'gw_tokens_total', { type: 'prompt' }), N * 19); // the spec example's usage: 19 prompt tokens
  }

  // a worker that dies is replaced (after a short backoff) and serving goes on
  process.kill(workers[0]!, 'SIGKILL');
  let now: number[] = [];
  for (let i = 0; i < 60; i++) {
    await sleep(100);
    now = childrenOf(primary);
    if (now.length === 2 && !now.includes(workers[0]!)) break;
  }
  t.is(now.length, 2);
  t.false(now.includes(workers[0]!));
  const again = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: HI }),
  });
  t.is(again.status, 200);
  await again.arrayBuffer();
  t.is(gw.stdout().match(/listening on/g)?.length, 1, 'a restarted worker prints no startup line');

  // SIGHUP reaches every worker: each re-reads the file
  await writeFile(file, baseConfig(`${providerSection(up)}\n[aliases]\nfast = "gpt-4o"\n\n[store]\nurl = "${redis.url}"\n`));
  gw.child.kill('SIGHUP');
  const seen: boolean[] = [];
  for (let i = 0; i < 50 && !(seen.length >= 6 && seen.slice(-6).every(Boolean)); i++) {
    await sleep(50);
    const dispatcher = new Agent();
    const r = await undiciFetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` }, dispatcher });
    seen.push(((await r.json()) as { data: Array<{ id: string }> }).data.some((m) => m.id === 'fast'));
    await dispatcher.close();
  }
  t.true(seen.slice(-6).every(Boolean), 'six connections in a row (both workers) see the reloaded alias');

  // SIGTERM: a stream in flight finishes, then every process exits
  up.handle((_req, res) => replySse(res, fixture('openai/openai-node/chat.stream.include-usage.sse'), { delayMs: 100 }));
  const streaming = fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: HI, stream: true }),
  });
  const res = await streaming;
  t.is(res.status, 200);
  gw.child.kill('SIGTERM');
  const text = await res.text();
  t.true(text.trimEnd().endsWith('data: [DONE]'), text);
  t.is(await gw.exited, 0);
  t.deepEqual(now.filter(alive), []);
});
