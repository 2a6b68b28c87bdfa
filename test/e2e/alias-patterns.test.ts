/**
 * Alias patterns end to end (docs/design.md "Routing, retries, fallbacks"): the model names
 * coding agents send on their own — Claude Code's `claude-opus-4-1-20250805[1m]` and its
 * background `claude-haiku-…`, Codex's default `gpt-5-codex` — route through
 * `"claude-*"`, `"claude-haiku-*"` and `"*"` without being listed. Exact names win, the
 * longest pattern wins among patterns, `/v1/models` lists concrete names only, a key's
 * `models` is checked on the id the pattern resolved to, and a reload swaps the patterns.
 */
import { writeFile } from 'node:fs/promises';
import Anthropic from '@anthropic-ai/sdk';
import test from 'ava';
import { parseConfig } from '../../server/config/load.ts';
import { ADMIN_TOKEN, baseConfig, KEY, KEY2, startGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, startUpstream, type MockUpstream } from '../helpers/upstream.ts';
import { client, post } from '../helpers/ext-helpers.ts';

const MODELS = ['qwen3-coder-plus', 'qwen3-coder-flash', 'default-model', 'exact-target'];
const ALIASES = `[aliases]
"claude-*" = "qwen3-coder-plus"
"claude-haiku-*" = "qwen3-coder-flash"
"*" = "default-model"
"claude-sonnet-4-5" = "exact-target"
`;

function config(up: MockUpstream, aliases: string, second = ''): string {
  const toml = baseConfig(
    `[providers.up]\nkind = "openai"\napi_key = "sk-upstream"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ${JSON.stringify(MODELS)}\n\n${aliases}`,
  );
  return second ? toml.replace(`key = "${KEY2}"\n`, `key = "${KEY2}"\n${second}\n`) : toml;
}

async function rig(t: import('ava').ExecutionContext, aliases = ALIASES, second = '') {
  const up = await startUpstream((_req, res) => replyJson(res, 200, fixture('openai/spec-examples/chat.default.response.json')));
  const gw = await startGateway(config(up, aliases, second));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw };
}

test("an agent's own model names route through the patterns: exact names first, then the longest pattern", async (t) => {
  const { up, gw } = await rig(t);
  const openai = client(gw);
  const cases: Array<[requested: string, upstream: string]> = [
    ['claude-opus-4-1-20250805[1m]', 'qwen3-coder-plus'],
    ['claude-haiku-4-5-20251001', 'qwen3-coder-flash'],
    ['gpt-5-codex', 'default-model'],
    ['claude-sonnet-4-5', 'exact-target'],
    ['qwen3-coder-flash', 'qwen3-coder-flash'],
    ['default-model', 'default-model'],
  ];
  for (const [requested, upstream] of cases) {
    await openai.chat.completions.create({ model: requested, messages: [{ role: 'user', content: 'hi' }] });
    t.is(up.received.at(-1)!.json.model, upstream, requested);
  }
  // Claude Code's call: Messages format, its long-context model name, translated to the chat upstream
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 });
  const msg = await anthropic.messages.create({ model: 'claude-opus-4-1-20250805[1m]', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
  t.is(msg.type, 'message');
  t.is(up.received.at(-1)!.json.model, 'qwen3-coder-plus');
  t.is(up.received.length, cases.length + 1);
});

test('/v1/models lists concrete names only; GET /v1/models/{id} answers a name a pattern routes, as an alias of its target', async (t) => {
  const { gw } = await rig(t);
  const openai = client(gw);
  const ids = [];
  for await (const m of openai.models.list()) ids.push(m.id);
  t.deepEqual(ids.sort(), [...MODELS, 'claude-sonnet-4-5'].sort());
  const one = await openai.models.retrieve('claude-opus-4-1');
  t.like(one, { id: 'claude-opus-4-1', alias_for: 'qwen3-coder-plus', owned_by: 'up' } as never);
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 });
  t.is((await anthropic.models.retrieve('claude-haiku-4-5')).id, 'claude-haiku-4-5');
});

test("a key's model patterns are checked on the id a pattern resolved to", async (t) => {
  const { up, gw } = await rig(t, ALIASES, 'models = ["qwen3-*"]');
  // claude-* → qwen3-coder-plus: allowed although the key lists no claude model
  t.is((await post(gw, '/v1/chat/completions', { model: 'claude-opus-4-1', messages: [{ role: 'user', content: 'hi' }] }, KEY2)).status, 200);
  t.is(up.received.at(-1)!.json.model, 'qwen3-coder-plus');
  // * → default-model: refused, before any upstream call
  const refused = await post(gw, '/v1/chat/completions', { model: 'gpt-5-codex', messages: [{ role: 'user', content: 'hi' }] }, KEY2);
  t.is(refused.status, 403);
  t.is(((await refused.json()) as any).error.code, 'model_not_allowed');
  t.is(up.received.length, 1);
  // and the key's list and retrieve agree
  const ids = (await client(gw, KEY2).models.list()).data.map((m) => m.id);
  t.deepEqual(ids.sort(), ['qwen3-coder-flash', 'qwen3-coder-plus']);
  t.is((await fetch(`${gw.baseURL}/models/gpt-5-codex`, { headers: { authorization: `Bearer ${KEY2}` } })).status, 404);
});

test('a pattern whose target no provider serves is a 404 naming the pattern; a pattern as a target is a config error', async (t) => {
  const { gw } = await rig(t, '[aliases]\n"gpt-*" = "no-such-model"\n');
  const r = await post(gw, '/v1/chat/completions', { model: 'gpt-5-codex', messages: [{ role: 'user', content: 'hi' }] });
  t.is(r.status, 404);
  t.regex(((await r.json()) as any).error.message, /'gpt-5-codex' \(alias of 'no-such-model', by the alias pattern 'gpt-\*'\)/);
  const err = t.throws(() => parseConfig(baseConfig('[aliases]\n"claude-*" = "qwen-*"\n'), 'gateway.toml', '/tmp/gateway.toml'));
  t.is(err.message, `gateway.toml: aliases."claude-*": expected a model id as the target, not the pattern 'qwen-*'`);
});

test('a reload swaps the patterns: names already resolved follow the new ones', async (t) => {
  const { up, gw } = await rig(t, '[aliases]\n"claude-*" = "qwen3-coder-plus"\n');
  const openai = client(gw);
  await openai.chat.completions.create({ model: 'claude-opus-4-1', messages: [{ role: 'user', content: 'hi' }] });
  t.is(up.received.at(-1)!.json.model, 'qwen3-coder-plus');
  await writeFile(gw.configPath, config(up, '[aliases]\n"claude-*" = "qwen3-coder-flash"\n"claude-opus-*" = "default-model"\n'));
  const reload = await fetch(`${gw.url}/v1/admin/reload`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.is(reload.status, 200);
  await openai.chat.completions.create({ model: 'claude-opus-4-1', messages: [{ role: 'user', content: 'hi' }] });
  t.is(up.received.at(-1)!.json.model, 'default-model');
  await openai.chat.completions.create({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'hi' }] });
  t.is(up.received.at(-1)!.json.model, 'qwen3-coder-flash');
});
