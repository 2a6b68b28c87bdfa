/**
 * The README's quick start as a new user follows it: `gw` on the example `gateway.toml`
 * (what `npm start` serves), the README's curl request, then the console at `/ui` signed
 * in with the file's `admin_token` — whose usage and request log already show that request,
 * because the example config enables both extensions. The same on the config a first run
 * writes when there is none.
 */
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { parse } from 'smol-toml';
import { spawnGateway } from '../helpers/gateway.ts';
import { README_ORIGIN, readmeBlock, readmeSection } from '../helpers/readme.ts';

const EXAMPLE = fileURLToPath(new URL('../../gateway.toml', import.meta.url));

/** The README's curl command as a fetch: its URL, headers and body. */
function readmeCurl(): { url: string; headers: Record<string, string>; body: string } {
  const text = readmeBlock(`curl -s ${README_ORIGIN}/v1/chat/completions`).replace(/\\\n/g, ' ');
  const headers: Record<string, string> = {};
  for (const [, name, value] of text.matchAll(/-H '([^:]+): ([^']*)'/g)) headers[name!] = value!;
  return { url: /curl -s (\S+)/.exec(text)![1]!, headers, body: /-d '([^']*)'/.exec(text)![1]! };
}

test("the quick start: the README's request on the example config, then /ui with the file's admin token shows it", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-quick-'));
  const config = join(dir, 'gateway.toml');
  await copyFile(EXAMPLE, config);
  const gw = await spawnGateway(['serve', '--config', config, '--bind', '127.0.0.1:0']);
  t.teardown(async () => {
    gw.child.kill('SIGTERM');
    await gw.exited;
    await rm(dir, { recursive: true, force: true });
  });
  t.regex(gw.stdout(), /listening on 127\.0\.0\.1:\d+ \(2 models, 1 provider, 2 extensions\)/);

  const curl = readmeCurl();
  const res = await fetch(curl.url.replace(README_ORIGIN, gw.url), { method: 'POST', headers: curl.headers, body: curl.body });
  t.is(res.status, 200);
  t.is(((await res.json()) as any).choices[0].message.content, 'hello gw');

  // the quick start names the console and the token it signs in with
  const { admin_token: token } = parse(await readFile(EXAMPLE, 'utf8')) as { admin_token: string };
  const setUp = readmeSection('## Set up');
  t.true(setUp.includes(`${README_ORIGIN}/ui`));
  t.true(setUp.includes('`admin_token`') && setUp.includes(token));

  const page = await fetch(`${gw.url}/ui/`);
  t.is(page.status, 200);
  t.regex(await page.text(), /<html/i);
  const admin = (path: string) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  // what the Overview charts read
  const series = (await (await admin('/v1/usage?bucket=hour&group_by=model')).json()) as any[];
  t.like(
    series.find((e) => e.model === 'mock-1'),
    { requests: 1 },
  );
  // what the Requests page reads: entries are written at most 50 ms after a request ends
  t.like((await logged(admin))[0], { key: 'default', model: 'mock-1', status: 200, route: 'chat' });
});

/** The request log's entries, once it has one (entries are written at most 50 ms after a request ends). */
async function logged(admin: (path: string) => Promise<Response>): Promise<any[]> {
  let entries: any[] = [];
  for (let i = 0; i < 40 && entries.length === 0; i++) {
    entries = (await (await admin('/v1/requests')).json()) as any[];
    if (entries.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  return entries;
}

test("a first run without a config writes one that serves the README's request and the console's data, its comments matching the docs", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-first-'));
  const config = join(dir, 'gateway.toml');
  const gw = await spawnGateway(['serve', '--config', config, '--bind', '127.0.0.1:0']);
  t.teardown(async () => {
    gw.child.kill('SIGTERM');
    await gw.exited;
    await rm(dir, { recursive: true, force: true });
  });
  t.regex(gw.stdout(), /listening on 127\.0\.0\.1:\d+ \(1 model, 1 provider, 2 extensions\)/);
  const text = await readFile(config, 'utf8');
  const written = parse(text) as { admin_token: string; keys: { default: { key: string } } };

  // the README's request, with the key the file holds
  const curl = readmeCurl();
  const res = await fetch(curl.url.replace(README_ORIGIN, gw.url), {
    method: 'POST',
    headers: { ...curl.headers, Authorization: `Bearer ${written.keys.default.key}` },
    body: curl.body,
  });
  t.is(res.status, 200);
  t.is(((await res.json()) as any).choices[0].message.content, 'hello gw');

  // what the console reads
  const admin = (path: string) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${written.admin_token}` } });
  t.is((await fetch(`${gw.url}/ui/`)).status, 200);
  t.like(
    ((await (await admin('/v1/usage?bucket=hour&group_by=model')).json()) as any[]).find((e) => e.model === 'mock-1'),
    { requests: 1 },
  );
  t.like((await logged(admin))[0], { key: 'default', model: 'mock-1', status: 200 });

  // its comments: every built-in extension, and budgets priced from the bundled table
  for (const name of await readdir(fileURLToPath(new URL('../../plugins/extensions/', import.meta.url)))) t.true(text.includes(`[extensions.${name}]`), name);
  t.regex(text, /budgets and spend work without \[pricing\]/);
  t.notRegex(text, /with \[extensions\.budget\] and \[pricing\]/);
});
