/**
 * Deeply nested request bodies (issue 14 item 14, "Nesting overflows the stack"): JSON.parse
 * takes any depth, JSON.stringify and the translators' recursive walks do not. A body nested
 * past MAX_JSON_DEPTH is a 400 naming where, on every route and kind, before any handler
 * touches it; one just inside the limit goes through, translations included.
 */
import test from 'ava';
import { MAX_JSON_DEPTH } from '../../lib/http/body.ts';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, replySse, startUpstream } from '../helpers/upstream.ts';

/** A JSON Schema nested `depth` objects deep (`{type, properties: {a: …}}`), as text: JSON.stringify itself overflows on the deep ones. */
function deepSchema(depth: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`;
}

/** A body with `schema` (JSON text) as tools[0].function.parameters. */
function chatWithSchema(model: string, schema: string, stream = false): string {
  return `{"model":"${model}","stream":${stream},"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${schema}}}]}`;
}

async function rig(t: import('ava').ExecutionContext) {
  const up = await startUpstream((req, res) => {
    if (req.url.startsWith('/v1/messages')) return void replySse(res, fixture('anthropic/anthropic-sdk-typescript/basic.sse'));
    return void replySse(res, fixture('openai/vercel-ai/openai-text.sse'));
  });
  const gw = await startGateway(
    baseConfig(`[providers.claude]\nkind = "anthropic"\napi_key = "sk-a-0123456789"\nbase_url = "${up.origin}"\nmodels = ["claude-x"]\n
[providers.oa]\nkind = "openai"\napi_key = "sk-o-0123456789"\nbase_url = "${up.origin}/v1"\nmodels = ["gpt-x"]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { gw, up };
}

const post = (url: string, path: string, body: string, auth = `Bearer ${KEY}`) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body });

test('tools[].function.parameters nested 20,000 deep: 400 naming the field on a translating kind and a passthrough stream, never a 500', async (t) => {
  const { gw, up } = await rig(t);
  const deep = deepSchema(20_000);
  for (const [model, stream] of [
    ['claude-x', false],
    ['claude-x', true],
    ['gpt-x', true],
    ['gpt-x', false],
  ] as const) {
    const r = await post(gw.url, '/v1/chat/completions', chatWithSchema(model, deep, stream));
    t.is(r.status, 400, `${model} stream=${stream}`);
    const body = (await r.json()) as { error: { code: string; param: string; message: string } };
    t.is(body.error.code, 'body_too_deep');
    t.is(body.error.param, 'tools[0].function.parameters');
    t.true(body.error.message.length < 300, 'a bounded message');
  }
  t.is(up.received.length, 0, 'nothing reached an upstream');
  t.false(
    gw.logs.some((l) => l.includes('"level":50')),
    'nothing logged as an internal error',
  );
});

test('every body route refuses it in its own error shape: Messages, Gemini, Responses, embeddings, admin', async (t) => {
  const { gw } = await rig(t);
  const deep = '['.repeat(20_000) + ']'.repeat(20_000);
  const messages = await post(gw.url, '/v1/messages', `{"model":"claude-x","max_tokens":5,"messages":${deep}}`);
  t.is(messages.status, 400);
  t.like(await messages.json(), { type: 'error', error: { type: 'invalid_request_error' } });
  const gemini = await post(gw.url, '/v1beta/models/claude-x:generateContent', `{"contents":${deep}}`);
  t.is(gemini.status, 400);
  t.like(await gemini.json(), { error: { code: 400, status: 'INVALID_ARGUMENT' } });
  for (const [path, body] of [
    ['/v1/responses', `{"model":"gpt-x","input":${deep}}`],
    ['/v1/embeddings', `{"model":"gpt-x","input":${deep}}`],
  ] as const) {
    const r = await post(gw.url, path, body);
    t.is(r.status, 400, path);
    t.like(await r.json(), { error: { code: 'body_too_deep', param: 'input[0][0][0]' } }, path);
  }
  const admin = await post(gw.url, '/v1/admin/keys', `{"name":"k","tags":${deep}}`, `Bearer ${ADMIN_TOKEN}`);
  t.is(admin.status, 400);
  t.like(await admin.json(), { error: { code: 'body_too_deep', param: 'tags[0][0][0]' } });
  t.false(gw.logs.some((l) => l.includes('"level":50')));
});

test(`a schema ${MAX_JSON_DEPTH - 8} levels deep is fine: translated to Messages and streamed back`, async (t) => {
  const { gw, up } = await rig(t);
  const r = await post(gw.url, '/v1/chat/completions', chatWithSchema('claude-x', deepSchema((MAX_JSON_DEPTH - 8) / 2), true));
  t.is(r.status, 200);
  t.regex(await r.text(), /data: \[DONE\]/);
  t.is(up.received.length, 1);
  t.truthy(up.received[0]!.json.tools[0].input_schema, 'the schema reached the upstream as input_schema');
});
