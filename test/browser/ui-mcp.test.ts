/**
 * The console's MCP page in a real browser (headless Chromium) at 1440 and 390 px: each
 * server's state, last error, tools under both names when one is hashed, the last minutes'
 * calls per minute, p50/p95 and error rate, a crashed stdio server's stderr, and a runtime
 * server added and deleted from the page. The key form takes MCP tools.
 * `GW_UI_MCP_SHOT=docs/img/ui-mcp.png` keeps the wide screenshot there.
 */
import { copyFile } from 'node:fs/promises';
import test from 'ava';
import { browserFor } from '../helpers/browser.ts';
import { openPage, screenshot, signIn } from '../helpers/console-page.ts';
import { ADMIN_TOKEN, KEY, startGateway } from '../helpers/gateway.ts';
import { client, httpServer, keySection, waitUp } from '../helpers/mcp.ts';
import { startHttpMcp } from '../helpers/mcp-upstream.ts';

const OVERFLOWING = `[...document.querySelectorAll('td, .panel')].filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible').map((e) => e.outerHTML.slice(0, 80))`;

test("the MCP page shows each server, its tools under both names, its calls and a crashed server's stderr; a server is added and deleted from it", async (t) => {
  const web = await startHttpMcp({ name: 'web', extraTools: { 'get.weather': 'sunny' } });
  const extra = await startHttpMcp({ name: 'extra' });
  const gw = await startGateway(`listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"
${keySection('default', KEY, ['*'])}
${httpServer('web', web.url, 'cost_per_call = 0.002')}
[mcp_servers.broken]
command = ${JSON.stringify(process.execPath)}
args = ["-e", "console.error('boom: missing GITHUB_TOKEN'); process.exit(3)"]
[mcp]
ping_interval_seconds = 1
`);
  t.teardown(async () => {
    await gw.stop();
    await web.close();
    await extra.close();
  });
  await waitUp(gw, ['web']);
  const { client: c } = await client(gw, KEY);
  for (let i = 0; i < 8; i++) await c.callTool({ name: 'web__echo', arguments: { text: `${i}` } });
  await c.callTool({ name: 'web__fail', arguments: {} });
  await c.callTool({ name: 'web__slow', arguments: { ms: 120, steps: 1 } });
  await c.close();

  const b = await browserFor(t, { viewport: { width: 1440, height: 900 } });
  if (!b) return;
  const page = b.context.pages()[0] ?? (await b.context.newPage());
  await signIn(page, gw.url);
  await openPage(page, 'mcp', 'MCP servers');
  const row = page.locator('tr[data-server=web]');
  await row.getByText('up', { exact: true }).waitFor();
  await row.getByText('web__echo').waitFor();
  // a hashed name with the server's own beside it
  const weather = row.locator('li', { hasText: 'get.weather' });
  t.regex(await weather.innerText(), /^web__get_weather_[0-9a-f]{8} own name get\.weather/);
  t.regex(await row.locator('td[data-label=Calls]').innerText(), /2 \/ min · 10% errors\np50 [\d.]+ m?s · p95 [\d.]+ m?s/);
  const broken = page.locator('tr[data-server=broken]');
  await broken
    .getByText(/down|connecting/)
    .first()
    .waitFor();
  t.regex(await broken.locator('td[data-label=State]').innerText(), /exited|cannot connect|closed/);
  await broken.getByRole('button', { name: 'stderr' }).click();
  t.regex(await broken.getByLabel('stderr of broken').innerText(), /boom: missing GITHUB_TOKEN/);
  await page.waitForLoadState('networkidle');
  const wide = await screenshot(t, page, 'mcp-1440');
  if (process.env.GW_UI_MCP_SHOT) await copyFile(wide, process.env.GW_UI_MCP_SHOT);

  // add a runtime server from the page, then delete it
  await page.getByLabel('Name').fill('extra');
  await page.getByLabel('URL or command').fill(extra.url);
  await page.getByRole('button', { name: 'Add server' }).click();
  await page
    .getByRole('status')
    .getByText(/MCP server extra is up: 5 tools/)
    .waitFor();
  const added = page.locator('tr[data-server=extra]');
  await added.getByText('extra__echo').waitFor();
  await added.getByRole('button', { name: 'Delete' }).click();
  await added.getByRole('button', { name: 'Delete extra' }).click();
  await added.waitFor({ state: 'detached' });

  // phone width: nothing wider than the screen or its box
  await page.setViewportSize({ width: 390, height: 844 });
  await openPage(page, 'mcp', 'MCP servers');
  await page.locator('tr[data-server=web]').getByText('web__echo').waitFor();
  t.true(await page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth + 1'), 'the page fits 390 px');
  t.deepEqual(await page.evaluate<string[]>(OVERFLOWING), []);
  await screenshot(t, page, 'mcp-390');

  // the key form takes MCP tools
  await page.setViewportSize({ width: 1440, height: 900 });
  await openPage(page, 'keys', 'Keys');
  const form = page.locator('form.create-key');
  await form.getByLabel('Name').fill('agent');
  await form.getByLabel('MCP tools').fill('web__echo, web__get_*');
  await form.getByLabel('Tool calls / min').fill('30');
  await form.getByRole('button', { name: 'Create key' }).click();
  await page.locator('[data-created-key=agent]').waitFor();
  const keys = (await (await fetch(`${gw.url}/v1/admin/keys`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { data: any[] };
  t.like(
    keys.data.find((k) => k.name === 'agent'),
    { mcp_tools: ['web__echo', 'web__get_*'], tool_calls_per_minute: 30 },
  );
});
