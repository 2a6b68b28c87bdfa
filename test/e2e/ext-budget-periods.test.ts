/**
 * A key's spend in the period in force is what it spent since that period's start, whatever
 * period it had before (issue 38 item 3, defect #5: each period kept its own counter, so a
 * key that spent $0.098 today under a daily budget, switched to $0.05 monthly, read $0.007
 * and was served again; switched to lifetime it read $0). Daily → monthly keeps today's and
 * the month's spend, monthly → daily keeps today's, weekly counts from Monday, lifetime counts
 * all, on LevelDB and on Redis across two instances (a PATCH on one, requests on both).
 * Spend recorded in the earlier per-period layout is folded in at startup, once, so an upgrade
 * reopens no budget. Dates are in 2037 (its May and June fall on the weekdays 2026's do):
 * spend series outlive the test's clock in real time too, as Redis expires them by it.
 */
import test, { type ExecutionContext } from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLevelStore } from '../../plugins/stores/level/level.ts';
import { openRedisStore } from '../../plugins/stores/redis/redis.ts';
import { usd } from '../../plugins/extensions/budget/spend.ts';
import { baseConfig, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { redisFor } from '../helpers/redis.ts';
import { admin, adminJson, json, openaiUpstream, post, providerSection } from '../helpers/ext-helpers.ts';
import { startUpstream, type MockUpstream } from '../helpers/upstream.ts';

/** $0.01 per output token, $10 per million input: a request with max_tokens 10 costs $0.1001. */
const PRICING = '[pricing."gpt-4o"]\ninput_per_mtok = 10\noutput_per_mtok = 10000\n';
const upstreamUsage = (req: any) => ({ prompt_tokens: 10, completion_tokens: req?.max_tokens ?? 50 });
const COST = 0.1001;
const CHAT = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 };

/** A runtime key's state as each instance sees it. */
interface Fleet {
  gws: TestGateway[];
  up: MockUpstream;
  /** The runtime key's secret. */
  secret: string;
  /** Sets the injected clock (every instance shares it). */
  at(iso: string): void;
}

/** `n` instances (sharing `store`, a `[store]` section or '') with the budget extension and a runtime key `app`. */
async function fleet(t: ExecutionContext, store: string, n: number, settings: Record<string, unknown>): Promise<Fleet> {
  let now = 0;
  const up = await openaiUpstream({ usageOf: upstreamUsage });
  const toml = baseConfig(`${providerSection(up)}\n${store}\n${PRICING}\n[extensions.budget]\ndefault_budget = 1000\n`);
  const gws: TestGateway[] = [];
  t.teardown(async () => {
    for (const g of gws) await g.stop();
    await up.close();
  });
  for (let i = 0; i < n; i++) gws.push(await startGateway(toml, { clock: () => now }));
  const created = await adminJson(gws[0]!, 'POST', '/v1/admin/keys', { name: 'app', ...settings });
  t.is(created.status, 201);
  await seen(t, gws, settings);
  return { gws, up, secret: created.body.key, at: (iso) => (now = Date.parse(iso)) };
}

/** Waits until every instance lists key `app` with `settings` (a change reaches the others within 2 s). */
async function seen(t: ExecutionContext, gws: TestGateway[], settings: Record<string, unknown>): Promise<void> {
  for (const gw of gws) {
    const t0 = Date.now();
    for (;;) {
      const k = (await admin(gw, 'GET', '/v1/admin/keys')).body.data.find((x: any) => x.name === 'app');
      if (k && Object.entries(settings).every(([f, v]) => k[f] === v)) break;
      if (Date.now() - t0 > 3000) return void t.fail(`${gw.url} does not list app with ${JSON.stringify(settings)}`);
      await sleep(25);
    }
  }
}

/** PATCHes key `app` on the first instance and waits until every instance has it. */
async function patch(t: ExecutionContext, f: Fleet, settings: Record<string, unknown>): Promise<void> {
  t.is((await adminJson(f.gws[0]!, 'PATCH', '/v1/admin/keys/app', settings)).status, 200);
  await seen(t, f.gws, settings);
}

/** Sends `n` requests as `app`, spread over the instances, one after the other; their statuses. */
async function ask(f: Fleet, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await post(f.gws[i % f.gws.length]!, '/v1/chat/completions', CHAT, f.secret)).status);
  return out;
}

/** `app`'s /v1/budget entry, the same on every instance. */
async function budgetOf(t: ExecutionContext, f: Fleet): Promise<any> {
  const entries = await Promise.all(f.gws.map(async (gw) => (await admin(gw, 'GET', '/v1/budget')).body.find((e: any) => e.key === 'app')));
  for (const e of entries.slice(1)) t.deepEqual(e, entries[0]);
  return entries[0];
}

/** `key`'s entries of GET /v1/budget?history=true as [period, start date or null, spent]. */
async function historyOf(gw: TestGateway, key: string): Promise<Array<[string, string | null, number]>> {
  const body = (await admin(gw, 'GET', '/v1/budget?history=true')).body as any[];
  return body.filter((e) => e.key === key).map((e) => [e.period, e.period_start?.slice(0, 10) ?? null, e.spent_usd]);
}

/**
 * Yesterday $0.2002 and today $0.3003 under a daily budget; then monthly, daily, weekly and
 * lifetime, each reading what was spent since its period's start and admitting or refusing by it.
 */
async function periodSwitches(t: ExecutionContext, store: string, n: number, redisUrl?: string): Promise<void> {
  const f = await fleet(t, store, n, { budget: 1, budget_period: 'daily' });
  f.at('2037-05-12T15:00:00Z'); // a Tuesday
  t.deepEqual(await ask(f, 2), [200, 200]);
  f.at('2037-05-13T10:00:00Z');
  t.deepEqual(await ask(f, 3), [200, 200, 200]);
  t.like(await budgetOf(t, f), { period: 'daily', spent_usd: usd(3 * COST), period_start: '2037-05-13T00:00:00Z' });

  // daily → monthly: the month so far, both days
  await patch(t, f, { budget: 0.55, budget_period: 'monthly' });
  t.like(await budgetOf(t, f), { period: 'monthly', spent_usd: usd(5 * COST), budget_usd: 0.55, period_start: '2037-05-01T00:00:00Z' });
  t.deepEqual(await ask(f, 2), [200, 429], '0.5005 < 0.55 admits one; 0.6006 refuses');

  // monthly → daily: today's, the request made under monthly included
  await patch(t, f, { budget: 0.45, budget_period: 'daily' });
  t.like(await budgetOf(t, f), { period: 'daily', spent_usd: usd(4 * COST), budget_usd: 0.45 });
  t.deepEqual(await ask(f, 2), [200, 429]);

  // daily → weekly: from Monday the 11th, every day of it
  await patch(t, f, { budget: 0.7, budget_period: 'weekly' });
  t.like(await budgetOf(t, f), { period: 'weekly', spent_usd: usd(7 * COST), period_start: '2037-05-11T00:00:00Z' });
  t.deepEqual(await ask(f, 1), [429]);

  // → lifetime: everything
  await patch(t, f, { budget: 0.9, budget_period: 'lifetime' });
  const life = await budgetOf(t, f);
  t.like(life, { period: 'lifetime', spent_usd: usd(7 * COST), remaining_usd: usd(0.9 - 7 * COST) });
  t.false('period_start' in life);
  t.deepEqual(await ask(f, 3), [200, 200, 429]);
  t.like(await budgetOf(t, f), { spent_usd: usd(9 * COST), reserved_usd: 0 });

  // back to daily the next day: nothing spent yet today
  f.at('2037-05-14T00:00:00Z');
  await patch(t, f, { budget: 0.15, budget_period: 'daily' });
  t.like(await budgetOf(t, f), { spent_usd: 0, period_start: '2037-05-14T00:00:00Z' });
  t.deepEqual(await ask(f, 3), [200, 200, 429]);
  t.is(f.up.received.length, 2 + 3 + 1 + 1 + 2 + 2);
  // history: lifetime, then the periods of the period in force (daily)
  t.deepEqual(await historyOf(f.gws[0]!, 'app'), [
    ['lifetime', null, usd(11 * COST)],
    ['daily', '2037-05-12', usd(2 * COST)],
    ['daily', '2037-05-13', usd(7 * COST)],
    ['daily', '2037-05-14', usd(2 * COST)],
  ]);

  // five weeks on: charging the record drops the totals of periods before the previous ones;
  // past periods are still read, from the hourly spend series
  f.at('2037-06-20T10:00:00Z');
  t.deepEqual(await ask(f, 1), [200]);
  t.deepEqual(await historyOf(f.gws[0]!, 'app'), [
    ['lifetime', null, usd(12 * COST)],
    ['daily', '2037-05-12', usd(2 * COST)],
    ['daily', '2037-05-13', usd(7 * COST)],
    ['daily', '2037-05-14', usd(2 * COST)],
    ['daily', '2037-06-20', usd(COST)],
  ]);
  if (redisUrl) {
    const s = await openRedisStore(redisUrl);
    const rec = await s.namespace('ext:budget').counters('s:app');
    await s.close();
    // the current day, week and month, May as the previous month, the total: May's days and weeks are gone
    t.deepEqual(Object.keys(rec).sort(), ['d:2037-06-20', 'm:2037-05-01', 'm:2037-06-01', 'usd', 'w:2037-06-15']);
  }
}

test('LevelDB: switching a key between daily, monthly, weekly and lifetime keeps what it spent since each period started', async (t) => {
  await periodSwitches(t, '', 1);
});

test('Redis, two instances: the same switches, PATCHed on one, requests spread over both, exact on both', async (t) => {
  const redis = await redisFor(t);
  if (!redis) return;
  await periodSwitches(t, `[store]\nurl = "${redis.url}"\n`, 2, redis.url);
});

/** Writes spend in the earlier layout (`s:<key>/<period>/<date>` and the lifetime `s:<key>`) through `open`. */
async function writeLegacy(store: import('gw/plugin').Store): Promise<void> {
  const s = store.namespace('ext:budget');
  await s.incr('s:default', { usd: 2 });
  await s.incr('s:default/daily/2037-05-12', { usd: 0.25 });
  await s.incr('s:default/daily/2037-05-13', { usd: 0.5 });
  await s.incr('s:default/monthly/2037-05-01', { usd: 0.125 });
  await s.incr('s:default/monthly/2037-04-01', { usd: 1 });
  await s.incr('s:second/weekly/2037-05-11', { usd: 0.75 });
  await store.close();
}

/** After the fold: what each period reads, and the fold done once (restarts and other instances add nothing). */
async function checkFolded(t: ExecutionContext, gws: TestGateway[]): Promise<void> {
  for (const gw of gws) {
    const b = (await admin(gw, 'GET', '/v1/budget')).body;
    // `default` is daily now: the 13th's counter and the running month's, dated today
    t.like(
      b.find((e: any) => e.key === 'default'),
      { period: 'daily', spent_usd: 0.625, budget_usd: 0.6, remaining_usd: -0.025 },
    );
    t.like(
      b.find((e: any) => e.key === 'second'),
      { period: 'lifetime', spent_usd: 0.75 },
    );
    const refused = await post(gw, '/v1/chat/completions', CHAT);
    t.is(refused.status, 429, 'the upgrade reopened no budget');
    t.is((await json(refused)).error.code, 'budget_exceeded');
  }
  t.deepEqual(await historyOf(gws[0]!, 'default'), [
    // April's month is no period the record keeps for a daily key, and it has no hourly series
    ['lifetime', null, 3.875],
    ['daily', '2037-05-12', 0.25],
    ['daily', '2037-05-13', 0.625],
  ]);
}

/** `default`: daily, $0.6; clock on 2037-05-13. */
const upgradeConfig = (up: MockUpstream, store: string) =>
  baseConfig(`${providerSection(up)}\n${store}\n${PRICING}\n[extensions.budget]\ndefault_budget = 1000\n`).replace(
    '[keys.default]\n',
    '[keys.default]\nbudget = 0.6\nbudget_period = "daily"\n',
  );
const clock = () => Date.parse('2037-05-13T12:00:00Z');

test('LevelDB: spend recorded in the earlier per-period layout is folded in at startup; no budget reopens; a restart folds nothing twice', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-test-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeLegacy(await openLevelStore(join(dir, 'data')));
  const up = await openaiUpstream({ usageOf: upstreamUsage });
  t.teardown(() => up.close());
  let gw = await startGateway(upgradeConfig(up, ''), { dir, clock, level: 'info' });
  t.true(gw.logs.some((l) => l.includes('folded into one record per key') && l.includes('"counters":5')));
  await checkFolded(t, [gw]);
  await gw.stop({ keepDir: true });
  gw = await startGateway(upgradeConfig(up, ''), { dir, clock });
  t.teardown(() => gw.stop());
  await checkFolded(t, [gw]);
  t.is(up.received.length, 0);
});

test('Redis: two instances starting on spend of the earlier layout fold it once between them', async (t) => {
  const redis = await redisFor(t);
  if (!redis) return;
  await writeLegacy(await openRedisStore(redis.url));
  const up = await openaiUpstream({ usageOf: upstreamUsage });
  const toml = upgradeConfig(up, `[store]\nurl = "${redis.url}"\n`);
  const gws = await Promise.all([startGateway(toml, { clock }), startGateway(toml, { clock })]);
  t.teardown(async () => {
    for (const g of gws) await g.stop();
    await up.close();
  });
  await checkFolded(t, gws);
  t.is(up.received.length, 0);
});

/** `[extensions.alerts]` with a budget rule (50/80/100%) and one JSON webhook to `hook`. */
const alertsSection = (hook: MockUpstream) =>
  `[extensions.alerts]\ncheck_interval_seconds = 0.1\n\n[[extensions.alerts.webhooks]]\nname = "ops"\nurl = "${hook.origin}/hook"\n\n[[extensions.alerts.rules]]\ntype = "budget"\n`;

/** The budget alerts `hook` received, as [key, threshold, period, budget]. */
const budgetAlerts = (hook: MockUpstream) =>
  hook.received
    .map((r) => r.json)
    .filter((e) => e?.rule === 'budget')
    .map((e) => [e.subject.key, e.details.threshold_percent, e.details.period, e.details.budget_usd]);

async function until(t: ExecutionContext, what: string, check: () => boolean, limitMs = 3000): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > limitMs) return void t.fail(`${what}: not seen within ${limitMs} ms`);
    await sleep(20);
  }
}

test('a change that puts a key past a threshold alerts at once: a tightening PATCH, a period switch by reload; a change below every threshold does not', async (t) => {
  const hook = await startUpstream((_req, res) => {
    res.writeHead(200);
    res.end('ok');
  });
  t.teardown(() => hook.close());
  const up = await openaiUpstream({ usageOf: upstreamUsage });
  const toml = baseConfig(`${providerSection(up)}\n${PRICING}\n[extensions.budget]\ndefault_budget = 1000\n\n${alertsSection(hook)}`).replace(
    '[keys.default]\n',
    '[keys.default]\nbudget = 10\nbudget_period = "daily"\n',
  );
  let now = Date.parse('2037-05-12T15:00:00Z');
  const gw = await startGateway(toml, { clock: () => now });
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  // a runtime key at 30% of $1 a month; the file key at 2% of $10 a day (yesterday as much)
  const created = await adminJson(gw, 'POST', '/v1/admin/keys', { name: 'app', budget: 1, budget_period: 'monthly' });
  for (const secret of [created.body.key, created.body.key, created.body.key]) t.is((await post(gw, '/v1/chat/completions', CHAT, secret)).status, 200);
  t.is((await post(gw, '/v1/chat/completions', CHAT)).status, 200);
  now = Date.parse('2037-05-13T09:00:00Z');
  t.is((await post(gw, '/v1/chat/completions', CHAT)).status, 200);
  t.is((await post(gw, '/v1/chat/completions', CHAT)).status, 200);
  await sleep(300);
  t.deepEqual(budgetAlerts(hook), []);

  // a raise, and a PATCH of something else: below every threshold, no alert
  t.is((await adminJson(gw, 'PATCH', '/v1/admin/keys/app', { budget: 2 })).status, 200);
  t.is((await adminJson(gw, 'PATCH', '/v1/admin/keys/app', { tags: { team: 'a' } })).status, 200);
  await sleep(300);
  t.deepEqual(budgetAlerts(hook), []);

  // tightened to $0.35: $0.3003 is 85%, so 80% alerts without another request
  t.is((await adminJson(gw, 'PATCH', '/v1/admin/keys/app', { budget: 0.35 })).status, 200);
  await until(t, 'the 80% alert of app', () => budgetAlerts(hook).length > 0);
  t.deepEqual(budgetAlerts(hook), [['app', 80, 'monthly', 0.35]]);

  // the file key switched to $0.25 a month by a reload: yesterday's and today's $0.3003 is 120%
  await writeFile(
    gw.configPath,
    (await readFile(gw.configPath, 'utf8')).replace('budget = 10\nbudget_period = "daily"', 'budget = 0.25\nbudget_period = "monthly"'),
  );
  t.is((await adminJson(gw, 'POST', '/v1/admin/reload')).status, 200);
  await until(t, 'the 100% alert of default', () => budgetAlerts(hook).length > 1);
  await sleep(300);
  t.deepEqual(budgetAlerts(hook), [
    ['app', 80, 'monthly', 0.35],
    ['default', 100, 'monthly', 0.25],
  ]);
  t.is(up.received.length, 6);
});
