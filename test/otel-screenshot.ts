/**
 * `npm run screenshot:otel`: regenerates docs/img/otel-trace.png, docs/opentelemetry.md's
 * picture of a trace. No trace viewer (Jaeger, Tempo) installs here, so the picture is the
 * console's own trace view, fed by spans gw really exported: gw starts in-process with
 * `[extensions.otel]` exporting over OTLP/protobuf to a local receiver, and a mock upstream
 * that fails the first attempt (503) and then streams; a client sends one streamed chat
 * completion with its own traceparent; headless Chromium opens /ui/#/traces on that trace.
 * Needs chromium (GW_CHROMIUM). Output: docs/img/otel-trace.png, or the first argument.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, FLAGS, haveChromium } from './helpers/chromium.ts';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway } from './helpers/gateway.ts';
import { startReceiver } from './helpers/otlp-receiver.ts';
import { fixture, replyJson, replySse, startUpstream } from './helpers/upstream.ts';

const OUT = process.argv[2] ?? fileURLToPath(new URL('../docs/img/otel-trace.png', import.meta.url));
const TRACE = '5b8efff798038103d269b633813fc60c';

if (!haveChromium()) {
  process.stderr.write(`npm run screenshot:otel needs chromium at ${CHROMIUM} (apt-get install -y --no-install-recommends chromium, or set GW_CHROMIUM)\n`);
  process.exit(1);
}
let calls = 0;
const up = await startUpstream(async (_r, res) => {
  await new Promise((r) => setTimeout(r, 60));
  if (calls++ === 0) return replyJson(res, 503, { error: { message: 'overloaded, try again', type: 'server_error' } });
  return replySse(res, fixture('openai/vercel-ai/openai-text.sse'), { delayMs: 4 });
});
const rx = await startReceiver();
const gw = await startGateway(
  baseConfig(`[providers.openai]
api_key = "sk-upstream-0123456789abcdef"
base_url = "${up.origin}/v1"
models = ["gpt-4.1-nano"]
max_retries = 1

[pricing."gpt-4.1-nano"]
input_per_mtok = 0.1
output_per_mtok = 0.4

[extensions.request_log]
[extensions.otel]
endpoint = "${rx.endpoint}"
schedule_delay_ms = 50
`),
);
const profile = await mkdtemp(join(tmpdir(), 'gw-screenshot-profile-'));
try {
  const res = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', traceparent: `00-${TRACE}-e457b5a2e4d86bd1-01` },
    body: JSON.stringify({ model: 'gpt-4.1-nano', stream: true, temperature: 0.3, max_tokens: 400, messages: [{ role: 'user', content: 'Tell me a story.' }] }),
  });
  await res.text();
  await rx.waitForSpans(3);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    colorScheme: 'light',
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${gw.url}/ui/`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`${gw.url}/ui/#/traces?trace=${TRACE}`);
    await page.locator('.waterfall [data-span]').nth(2).waitFor();
    await page.locator('.waterfall [data-span]').nth(2).click();
    await page.waitForLoadState('networkidle');
    await mkdir(dirname(OUT), { recursive: true });
    await page.screenshot({ path: OUT, fullPage: true });
    process.stdout.write(`wrote ${OUT}\n`);
  } finally {
    await context.close();
  }
} finally {
  await gw.stop();
  await up.close();
  await rx.close();
  await rm(profile, { recursive: true, force: true });
}
