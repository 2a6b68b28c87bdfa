/**
 * Names users choose that are also members of `Object.prototype` (`__proto__`,
 * `constructor`, `toString`, `hasOwnProperty`) as tag names, key names, model names and
 * alias names: each is an ordinary name, found only where it was given; a `__proto__` entry
 * that a config file or an admin body would lose is refused, naming where it is.
 */
import test from 'ava';
import { ADMIN_TOKEN, baseConfig, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { openaiUpstream } from '../helpers/ext-helpers.ts';

const NAMES = ['constructor', 'toString', 'hasOwnProperty'] as const;
const secret = (name: string) => `sk-proto-test-${name}-0123456789abcdef`;

/** A common-format upstream reporting 1000 prompt and 500 completion tokens per answer. */
async function upstream(t: import('ava').ExecutionContext) {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 1000, completion_tokens: 500 }) });
  t.teardown(() => up.close());
  return up;
}

/** gw with one common-format provider serving `models` on `up`, and `extra` config; stopped at teardown. */
async function serving(t: import('ava').ExecutionContext, up: { origin: string }, models: string[], extra: string): Promise<TestGateway> {
  const gw = await startGateway(
    baseConfig(`[providers.compat]\napi_key = "sk-compat-0123456789abcdef"\nbase_url = "${up.origin}/v1"\nmodels = ${JSON.stringify(models)}\n\n${extra}`),
  );
  t.teardown(() => gw.stop());
  return gw;
}

async function call(gw: TestGateway, auth: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

const chat = (gw: TestGateway, key: string, model: string) =>
  call(gw, key, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });

test('tag names and key names: group_by=tag:<name> reads only tags a key has; keys of every such name authenticate and count apart', async (t) => {
  const up = await upstream(t);
  const gw = await startGateway(
    `listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"

[keys.constructor]
key = "${secret('constructor')}"
tags = { constructor = "c1", toString = "t1", hasOwnProperty = "h1" }

[keys.toString]
key = "${secret('toString')}"

[keys.hasOwnProperty]
key = "${secret('hasOwnProperty')}"
tags = { env = "prod" }

[providers.compat]
api_key = "sk-compat-0123456789abcdef"
base_url = "${up.origin}/v1"
models = ["gpt-x"]

[extensions.usage]
`,
  );
  t.teardown(() => gw.stop());
  // a runtime key may be called __proto__ (keys live in Maps); a tag may not (zod would drop it)
  const created = await call(gw, ADMIN_TOKEN, 'POST', '/v1/admin/keys', { name: '__proto__', tags: { toString: 'rt' } });
  t.is(created.status, 201, JSON.stringify(created.json));
  const refused = await call(gw, ADMIN_TOKEN, 'POST', '/v1/admin/keys', { name: 'x', tags: JSON.parse('{"__proto__": "lost"}') });
  t.is(refused.status, 400);
  t.regex(refused.json.error.message, /"__proto__" cannot be a name/);
  const patched = await call(gw, ADMIN_TOKEN, 'PATCH', '/v1/admin/keys/__proto__', JSON.parse('{"tags": {"__proto__": "lost"}}'));
  t.is(patched.status, 400);

  for (const name of NAMES) t.is((await chat(gw, secret(name), 'gpt-x')).status, 200, name);
  t.is((await chat(gw, created.json.key, 'gpt-x')).status, 200);

  const lifetime = (await call(gw, ADMIN_TOKEN, 'GET', '/v1/usage')).json as Array<{ key: string; requests: number }>;
  t.deepEqual(lifetime.map((e) => [e.key, e.requests]).sort(), [
    ['__proto__', 1],
    ['constructor', 1],
    ['hasOwnProperty', 1],
    ['toString', 1],
  ]);

  const byTag = async (tag: string) => {
    const r = await call(gw, ADMIN_TOKEN, 'GET', `/v1/usage?bucket=day&group_by=key,tag:${tag}`);
    t.is(r.status, 200);
    // pairs, not an object: an object literal's `__proto__: …` would set its prototype
    return (r.json as Array<Record<string, unknown>>).map((e) => [e.key, e[`tag:${tag}`]]).sort();
  };
  // each tag's value for the keys __proto__, constructor, hasOwnProperty, toString
  const expected: Array<[tag: string, values: Array<string | null>]> = [
    ['constructor', [null, 'c1', null, null]],
    ['toString', ['rt', 't1', null, null]],
    ['hasOwnProperty', [null, 'h1', null, null]],
    ['__proto__', [null, null, null, null]],
    ['valueOf', [null, null, null, null]],
  ];
  const keys = ['__proto__', 'constructor', 'hasOwnProperty', 'toString'];
  for (const [tag, values] of expected) {
    t.deepEqual(
      await byTag(tag),
      keys.map((k, i) => [k, values[i]]),
      tag,
    );
  }
});

test('model names and alias names: routed, priced and charged only by their own entries', async (t) => {
  const up = await upstream(t);
  const gw = await serving(
    t,
    up,
    ['constructor', 'toString', '__proto__', 'gpt-x'],
    `[aliases]
hasOwnProperty = "gpt-x"
valueOf = "constructor"

[pricing.constructor]
input_per_mtok = 1.0
output_per_mtok = 2.0

[pricing.gpt-x]
input_per_mtok = 3.0
output_per_mtok = 4.0

[extensions.request_log]
`,
  );
  const { KEY } = await import('../helpers/gateway.ts');
  for (const model of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
    const r = await chat(gw, KEY, model);
    t.is(r.status, 200, model);
  }
  t.is(up.received.map((r) => r.json.model).join(','), 'constructor,toString,__proto__,gpt-x,constructor');
  t.is((await chat(gw, KEY, 'isPrototypeOf')).status, 404);

  let entries: Array<{ model: string; cost_usd: number | null }> = [];
  for (let i = 0; i < 100 && entries.length < 6; i++) {
    entries = (await call(gw, ADMIN_TOKEN, 'GET', '/v1/requests')).json;
    await new Promise((r) => setTimeout(r, 20));
  }
  // 1000 prompt and 500 completion tokens at the model's own price; none for unpriced models
  t.deepEqual(entries.map((e) => [e.model, e.cost_usd]).sort(), [
    ['__proto__', null],
    ['constructor', 0.002],
    ['hasOwnProperty', 0.005],
    ['isPrototypeOf', null],
    ['toString', null],
    ['valueOf', 0.002],
  ]);

  const metrics = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const costLines = metrics.split('\n').filter((l) => l.startsWith('gw_cost_usd_total{'));
  t.true(costLines.length >= 3, metrics);
  for (const l of costLines) t.regex(l, / \d+(\.\d+)?(e-?\d+)?$/, l);
  t.true(costLines.some((l) => l.includes('model="toString"') && l.endsWith(' 0')));
});

test('with the budget on, an unpriced model named like a prototype member is refused as unpriced', async (t) => {
  const up = await upstream(t);
  const gw = await serving(
    t,
    up,
    ['constructor', 'toString', '__proto__', 'hasOwnProperty'],
    `[pricing.constructor]
input_per_mtok = 1.0
output_per_mtok = 2.0

[extensions.budget]
default_budget = 10.0
[extensions.budget.keys.toString]
budget = 0.0
`,
  );
  const { KEY } = await import('../helpers/gateway.ts');
  t.is((await chat(gw, KEY, 'constructor')).status, 200);
  for (const model of ['toString', '__proto__', 'hasOwnProperty']) {
    const r = await chat(gw, KEY, model);
    t.is(r.status, 403, model);
    t.is(r.json.error.code, 'model_not_priced', model);
  }
  t.is(up.received.length, 1);
  const budget = (await call(gw, ADMIN_TOKEN, 'GET', '/v1/budget')).json as Array<{ key: string; spent_usd: number; budget_usd: number }>;
  const def = budget.find((b) => b.key === 'default')!;
  t.is(def.budget_usd, 10);
  t.is(def.spent_usd, 0.002);
});

test('a __proto__ name in the config file is refused, naming where; ${toString} is an unset variable', async (t) => {
  for (const [section, where] of [
    ['[aliases]\n"__proto__" = "gpt-x"\n', 'aliases.__proto__'],
    ['[pricing.__proto__]\ninput_per_mtok = 1.0\noutput_per_mtok = 1.0\n', 'pricing.__proto__'],
    ['[keys.__proto__]\nkey = "sk-proto-test-0123456789abcdef"\n', 'keys.__proto__'],
    ['[keys.k]\nkey = "sk-proto-test-0123456789abcdef"\ntags = { "__proto__" = "x" }\n', 'keys.k.tags.__proto__'],
  ]) {
    const err = await t.throwsAsync(startGateway(`listen = "127.0.0.1:0"\n${section}`));
    t.true(err!.message.includes(`${where}: "__proto__" cannot be a name here`), err!.message);
  }
  const err = await t.throwsAsync(
    startGateway(`listen = "127.0.0.1:0"\n[providers.compat]\napi_key = "\${toString}"\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["m"]\n`),
  );
  t.regex(err!.message, /providers\.compat\.api_key: environment variable toString is not set/);
});
