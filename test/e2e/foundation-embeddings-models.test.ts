/**
 * Foundation: /v1/embeddings (float and base64, as the official openai client asks) and
 * /v1/models (models and aliases) through gw to a real-socket mock OpenAI upstream.
 */
import test from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, startUpstream } from '../helpers/upstream.ts';

const FLOAT = 'openai/openai-node/embeddings-float-response.json';

/** The float vector as little-endian float32 base64, as OpenAI answers `encoding_format: "base64"`. */
function toBase64(v: number[]): string {
  return Buffer.from(new Float32Array(v).buffer).toString('base64');
}

async function setup(t: import('ava').ExecutionContext, extra = '') {
  const floatBody = fixture(FLOAT);
  const floats: number[] = fixtureJson(FLOAT).data[0].embedding;
  const up = await startUpstream((r, res) => {
    if (r.url === '/v1/models') return replyJson(res, 200, { object: 'list', data: [] });
    if (r.json?.encoding_format === 'base64') {
      const b = fixtureJson(FLOAT);
      b.data[0].embedding = toBase64(floats);
      return replyJson(res, 200, b);
    }
    return replyJson(res, 200, floatBody);
  });
  const gw = await startGateway(
    baseConfig(
      `[providers.up]\napi_key = "sk-up"\nbase_url = "${up.origin}/v1"\nmodels = ["text-embedding-3-large", "gpt-4o"]\n\n[providers.other]\nkind = "mock"\nmodels = ["gpt-4o", "mock-1"]\n${extra}`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw, floats, client: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }) };
}

test('embeddings, float: the vector comes back as the upstream sent it; the request reaches it unchanged', async (t) => {
  const { up, floats, client } = await setup(t);
  const r = await client.embeddings.create({ model: 'text-embedding-3-large', input: 'The food was delicious', encoding_format: 'float' });
  t.deepEqual(r.data[0]!.embedding, floats);
  t.deepEqual(r.usage, { prompt_tokens: 1, total_tokens: 1 });
  t.is(up.received[0]!.url, '/v1/embeddings');
  t.deepEqual(up.received[0]!.json, { model: 'text-embedding-3-large', input: 'The food was delicious', encoding_format: 'float' });
});

test('embeddings, base64 (the openai client default): decoded to the same floats', async (t) => {
  const { up, floats, client } = await setup(t);
  const r = await client.embeddings.create({ model: 'text-embedding-3-large', input: ['a', 'b'] });
  t.is(up.received[0]!.json.encoding_format, 'base64');
  const got = r.data[0]!.embedding;
  t.is(got.length, floats.length);
  // float32 round trip
  for (let i = 0; i < got.length; i++) t.true(Math.abs(got[i]! - floats[i]!) < 1e-6);
});

test('embeddings through an alias: the upstream receives the canonical model', async (t) => {
  const { up, client } = await setup(t, '[aliases]\nembed = "text-embedding-3-large"\n');
  await client.embeddings.create({ model: 'embed', input: 'x', encoding_format: 'float' });
  t.is(up.received[0]!.json.model, 'text-embedding-3-large');
});

test('GET /v1/models lists every model once and the aliases', async (t) => {
  const { client } = await setup(t, '[aliases]\ngpt4 = "gpt-4o"\nnowhere = "no-such-model"\n');
  const list: any[] = [];
  for await (const m of client.models.list()) list.push(m);
  const ids = list.map((m) => m.id).sort();
  t.deepEqual(ids, ['gpt-4o', 'gpt4', 'mock-1', 'nowhere', 'text-embedding-3-large']);
  t.true(list.every((m) => m.object === 'model'));
  const gpt4o = list.find((m) => m.id === 'gpt-4o');
  t.deepEqual(gpt4o.owned_by.split(',').sort(), ['other', 'up']);
  t.is(list.find((m) => m.id === 'gpt4').alias_for, 'gpt-4o');
});

test('GET /v1/models needs a gateway key', async (t) => {
  const { gw } = await setup(t);
  const r = await fetch(`${gw.baseURL}/models`);
  t.is(r.status, 401);
  t.is(((await r.json()) as { error: { code: string } }).error.code, 'missing_api_key');
});
