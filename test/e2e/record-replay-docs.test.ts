/**
 * The worked CI example of docs/record-replay.md, as a CI job runs it: `gw serve` with the
 * page's CI config (a replay provider of the committed test/cassettes/openai-suite.jsonl, a
 * CI-only gateway key, no vendor key anywhere), the OpenAI SDK suite against it, then
 * `gw replay check` — every recording was asked for, so it exits 0.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { runSuite } from '../cassettes/suite.ts';
import { runCli } from '../helpers/cli.ts';
import { spawnGateway } from '../helpers/gateway.ts';
import { fencedBlocks } from '../helpers/readme.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test("the docs' CI config serves the committed suite's cassette offline, and replay check finds nothing stale", async (t) => {
  const page = readFileSync(join(ROOT, 'docs/record-replay.md'), 'utf8');
  const block = fencedBlocks(page).find((b) => b.lang === 'toml' && b.text.includes('[keys.ci]'))?.text;
  if (!block) return t.fail('docs/record-replay.md has no CI config block ([keys.ci])');
  const key = /key = "([^"]+)"/.exec(block)![1]!;
  t.false(/api_key/.test(block), 'no vendor key in the CI config');
  // the page's config sits at the repository root; here it is written elsewhere, so its cassette path is made absolute
  const toml = block.replace(/cassette = "([^"]+)"/, (_m, p: string) => `cassette = "${join(ROOT, p)}"`);
  const dir = await mkdtemp(join(tmpdir(), 'gw-rr-docs-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const config = join(dir, 'gw-ci.toml');
  await writeFile(config, toml);

  const gw = await spawnGateway(['serve', '--config', config, '--bind', '127.0.0.1:0']);
  t.teardown(() => void gw.child.kill('SIGKILL'));
  const result = await runSuite(`${gw.url}/v1`, key);
  t.deepEqual(result, {
    greeting: 'Hello! How can I assist you today?',
    streamed: '{"city":"San Francisco","units":"c"}',
    streamUsage: { prompt_tokens: 17, completion_tokens: 10, total_tokens: 27 },
    toolCall: { name: 'get_current_weather', arguments: '{\n"location": "Boston, MA"\n}' },
  });
  gw.child.kill('SIGTERM');
  t.is(await gw.exited, 0);

  const checked = await runCli(['replay', 'check', join(ROOT, 'test/cassettes/openai-suite.jsonl'), '--config', config]);
  t.is(checked.code, 0, checked.stderr);
  t.regex(checked.stderr, /0 of 3 recordings were not asked for/);
});
