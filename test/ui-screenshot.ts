/**
 * `npm run screenshot`: regenerates docs/img/ui-overview.png, docs/img/ui-models.png and
 * docs/img/ui-requests.png, the README's pictures of the console (the Overview, today in UTC;
 * the Models page; the request log with one request's details open). Starts gw in-process (mock provider, usage + budget + rate_limit + request_log)
 * in a temp dir, sends real traffic through it, and opens /ui in headless Chromium.
 *
 * So that the charts have a day to show, the store is first seeded with a demo day of
 * hourly usage, spend, errors by code and latency sketches, and an hour of per-minute
 * latency (deterministic, made up for the picture: never do this to a real gateway); the
 * current hour is the real traffic sent here. Needs chromium (GW_CHROMIUM).
 * Output: docs/img/, or the directory given as the first argument.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { chromium } from 'playwright-core';
import type { FinishedRequest } from '../core/hooks.ts';
import { LatencyRecorder } from '../plugins/extensions/usage/latency.ts';
import { openLevelStore } from '../plugins/stores/level/level.ts';
import { CHROMIUM, FLAGS, haveChromium } from './helpers/chromium.ts';
import { ADMIN_TOKEN, startGateway } from './helpers/gateway.ts';

const OUT_DIR = process.argv[2] ?? fileURLToPath(new URL('../docs/img/', import.meta.url));
const OVERVIEW = join(OUT_DIR, 'ui-overview.png');
const MODELS_PNG = join(OUT_DIR, 'ui-models.png');
const REQUESTS_PNG = join(OUT_DIR, 'ui-requests.png');
const HOUR = 3_600_000;
const KEYS: Record<string, string> = {
  web: 'sk-demo-web-key-0123456789abcdef0123',
  batch: 'sk-demo-batch-key-0123456789abcdef01',
  agents: 'sk-demo-agents-key-0123456789abcdef0',
};
/** Each key's `team` tag (the Overview's "By tag"). */
const TEAMS: Record<string, string> = { web: 'product', batch: 'data', agents: 'product' };
/** `ms`: a model's typical latency for the demo sketches. */
const MODELS = [
  { id: 'gpt-4o', provider: 'openai', weight: 1, price: [2.5, 10], ms: 900 },
  { id: 'claude-sonnet-4-5', provider: 'anthropic', weight: 0.7, price: [3, 15], ms: 1400 },
  { id: 'gemini-2.5-flash', provider: 'gemini', weight: 0.5, price: [0.3, 2.5], ms: 450 },
  { id: 'qwen3-max', provider: 'dashscope', weight: 0.3, price: [1.2, 6], ms: 2300 },
];
const CODES = ['upstream_error', 'rate_limit_exceeded', 'invalid_request_body', 'upstream_timeout'];

/** A made-up answered request of `ms` (a stream every other time) for the demo sketches. */
function sample(m: (typeof MODELS)[number], ms: number, stream: boolean): FinishedRequest {
  const rc = { provider: m.provider, servedModel: m.id, cacheHit: false, stream, attempts: 1, upstreamMs: ms - 0.6 };
  return { status: 200, totalMs: ms, ttfbMs: ms * 0.3, rc } as unknown as FinishedRequest;
}

const toml = `listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"
data_dir = "data"
${Object.entries(KEYS)
  .map(([name, key]) => `[keys.${name}]\nkey = "${key}"\ntags = { team = "${TEAMS[name]}" }\n`)
  .join('')}
${MODELS.map((m) => `[providers.${m.provider}]\nkind = "mock"\nmodels = ["${m.id}"]\ndelay_ms = 2\n`).join('\n')}
${MODELS.map((m) => `[pricing."${m.id}"]\ninput_per_mtok = ${m.price[0]}\noutput_per_mtok = ${m.price[1]}\n`).join('\n')}
[extensions.rate_limit]
requests_per_minute = 600
tokens_per_minute = 2000000
[extensions.usage]
[extensions.budget]
default_budget = 50.0
[extensions.request_log]
`;

/** A small deterministic generator (mulberry32), so the picture is the same every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The demo day: 23 past hours of usage and spend per key and model, busier in the afternoon (UTC). */
async function seed(dataDir: string): Promise<void> {
  const store = await openLevelStore(dataDir);
  const usage = store.namespace('ext:usage');
  const budget = store.namespace('ext:budget');
  const opts = { bucketMs: HOUR, retentionMs: 90 * 24 * HOUR };
  const rnd = random(12);
  const now = Math.floor(Date.now() / HOUR) * HOUR;
  const keyShare: Record<string, number> = { web: 1, batch: 0.6, agents: 0.8 };
  for (let h = 23; h >= 1; h--) {
    const at = now - h * HOUR;
    const hourOfDay = new Date(at).getUTCHours();
    const load = 0.35 + 0.65 * Math.max(0, Math.sin(((hourOfDay - 6) / 24) * 2 * Math.PI));
    for (const [key, share] of Object.entries(keyShare)) {
      for (const m of MODELS) {
        const requests = Math.round(40 * load * share * m.weight * (0.7 + 0.6 * rnd()));
        if (requests === 0) continue;
        const prompt = requests * Math.round(350 + 500 * rnd());
        const completion = requests * Math.round(120 + 300 * rnd());
        const errors = rnd() < 0.25 ? Math.max(1, Math.round(requests * 0.04 * rnd())) : 0;
        const usd = (prompt * m.price[0]! + completion * m.price[1]!) / 1e6;
        const deltas: Record<string, number> = { requests: requests + errors, errors, prompt_tokens: prompt, completion_tokens: completion };
        for (let e = 0; e < errors; e++) {
          const code = `e:${CODES[Math.floor(rnd() * CODES.length)]}`;
          deltas[code] = (deltas[code] ?? 0) + 1;
        }
        await usage.bucketIncr('h', at, JSON.stringify([key, m.id, m.provider]), deltas, opts);
        await usage.incr(`u:${JSON.stringify([key, m.id])}`, { requests, prompt_tokens: prompt, completion_tokens: completion });
        await budget.bucketIncr('h', at, JSON.stringify([key, m.id]), { usd, requests }, opts);
        await budget.incr(`s:${key}`, { usd });
      }
    }
  }
  // latency: an hour sketch per model for the past hours, a minute sketch for the last hour
  let clock = 0;
  const rec = new LatencyRecorder(
    usage,
    opts,
    6 * HOUR,
    () => clock,
    (err) => process.stderr.write(`${err.message}\n`),
  );
  const slowAt = 40;
  for (let i = 23 * 60; i >= 1; i--) {
    clock = Date.now() - i * 60_000;
    for (const m of MODELS) {
      const n = i <= 60 ? 6 : 1;
      // one model has a slow spell in the last hour: what the Models page is for
      const slow = m.id === 'qwen3-max' && i < slowAt && i > slowAt - 15 ? 2.2 : 1;
      for (let k = 0; k < n; k++) rec.observe(sample(m, m.ms * slow * Math.exp(0.35 * (rnd() + rnd() + rnd() - 1.5)), k % 2 === 0));
    }
    if (i % 60 === 0 || i <= 60) await rec.flush();
  }
  await rec.close();
  await store.close();
}

if (!haveChromium()) {
  process.stderr.write(`npm run screenshot needs chromium at ${CHROMIUM} (apt-get install -y --no-install-recommends chromium, or set GW_CHROMIUM)\n`);
  process.exit(1);
}
const dir = await mkdtemp(join(tmpdir(), 'gw-screenshot-'));
const profile = await mkdtemp(join(tmpdir(), 'gw-screenshot-profile-'));
try {
  await seed(join(dir, 'data'));
  const gw = await startGateway(toml, { dir });
  try {
    // the current hour: real requests through gw
    const rnd = random(7);
    for (const [name, key] of Object.entries(KEYS)) {
      const c = new OpenAI({ baseURL: gw.baseURL, apiKey: key, maxRetries: 0 });
      for (const m of MODELS) {
        for (let i = 0; i < 1 + Math.floor(rnd() * 4 * m.weight); i++) {
          await c.chat.completions.create({ model: m.id, messages: [{ role: 'user', content: `summarise ticket ${i} for ${name} in a few words please` }] });
        }
      }
      await c.chat.completions.create({ model: 'gpt-5-preview', messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined);
    }
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 800 },
      colorScheme: 'light',
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${gw.url}/ui/`);
      await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('[data-chart=spend] .plot canvas').first().waitFor();
      await page.locator('[data-chart=latency] .plot canvas').first().waitFor();
      await page.waitForLoadState('networkidle');
      await mkdir(OUT_DIR, { recursive: true });
      await page.screenshot({ path: OVERVIEW, fullPage: true });
      process.stdout.write(`wrote ${OVERVIEW}\n`);
      await page.goto(`${gw.url}/ui/#/models`);
      await page.locator('[data-chart=model-latency] .plot canvas').first().waitFor();
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: MODELS_PNG, fullPage: true });
      process.stdout.write(`wrote ${MODELS_PNG}\n`);
      // the request log, filtered to one key from the Overview's table, with a request's details open
      await page.goto(`${gw.url}/ui/#/overview?by=key`);
      await page.locator('table.groups tr[data-group="web"] a.drill').click();
      await page.locator('tr[data-request-id]').nth(3).click();
      await page.getByRole('complementary', { name: 'Request details' }).waitFor();
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: REQUESTS_PNG });
      process.stdout.write(`wrote ${REQUESTS_PNG}\n`);
    } finally {
      await context.close();
    }
  } finally {
    await gw.stop();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  await rm(profile, { recursive: true, force: true });
}
