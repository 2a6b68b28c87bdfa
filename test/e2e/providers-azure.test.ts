import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, type Handler } from '../helpers/upstream.ts';
import { assemble, frames } from './providers-assemble.ts';

const DEPLOYMENT = 'gpt-5-nano';
const ROUTER_SSE = 'azure/vercel-ai/azure-model-router.1.sse';

async function setup(t: ExecutionContext, handler: Handler, extra = `models = ["${DEPLOYMENT}", "emb-small"]`) {
  const up = await startUpstream(handler);
  const gw = await startGateway(baseConfig(`[providers.azure]\napi_key = "az-upstream-key"\nbase_url = "${up.origin}/"\nmax_retries = 0\n${extra}\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw, client: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }) };
}

const post = (url: string, body: unknown) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

test('v1 API (no api_version): /openai/v1/chat/completions, api-key header, model = deployment', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('azure/vercel-ai/azure-deepseek-reasoning.1.json')));
  const res = await client.chat.completions.create({ model: DEPLOYMENT, messages: [{ role: 'user', content: 'Invent a holiday' }] });
  const r = up.received[0]!;
  t.is(r.url, '/openai/v1/chat/completions');
  t.is(r.headers['api-key'], 'az-upstream-key');
  t.is(r.headers.authorization, undefined);
  t.is(r.json.model, DEPLOYMENT);
  const expected = fixtureJson('azure/vercel-ai/azure-deepseek-reasoning.1.json');
  t.is(res.choices[0]!.message.content, expected.choices[0].message.content);
  t.is((res.choices[0]!.message as { reasoning_content?: string }).reasoning_content, expected.choices[0].message.reasoning_content);
  t.like(res.usage, { prompt_tokens: 19, completion_tokens: 1969 });
});

test('with api_version: deployment URL with ?api-version= for chat and embeddings', async (t) => {
  const { up, client } = await setup(
    t,
    (r, res) =>
      r.url.includes('/embeddings')
        ? replyJson(res, 200, {
            object: 'list',
            data: [{ object: 'embedding', index: 0, embedding: [1, 2] }],
            model: 'emb-small',
            usage: { prompt_tokens: 1, total_tokens: 1 },
          })
        : replyJson(res, 200, fixture('azure/vercel-ai/azure-deepseek-reasoning.1.json')),
    `models = ["${DEPLOYMENT}", "emb-small"]\napi_version = "2024-10-21"`,
  );
  await client.chat.completions.create({ model: DEPLOYMENT, messages: [{ role: 'user', content: 'x' }] });
  t.is(up.received[0]!.url, `/openai/deployments/${DEPLOYMENT}/chat/completions?api-version=2024-10-21`);
  t.is(up.received[0]!.headers['api-key'], 'az-upstream-key');
  const emb = await client.embeddings.create({ model: 'emb-small', input: 'x', encoding_format: 'float' });
  t.is(up.received[1]!.url, '/openai/deployments/emb-small/embeddings?api-version=2024-10-21');
  t.deepEqual(emb.data[0]!.embedding, [1, 2]);
});

test('stream: prompt_filter_results first chunk is not taken for the usage chunk (include_usage)', async (t) => {
  const sse = fixture(ROUTER_SSE);
  const { client } = await setup(t, (_r, res) => replySse(res, sse));
  const got = await assemble(
    await client.chat.completions.create({
      model: DEPLOYMENT,
      messages: [{ role: 'user', content: 'Capital of Denmark?' }],
      stream: true,
      stream_options: { include_usage: true },
    }),
  );
  t.is(got.content, 'Capital of Denmark.');
  t.is(got.finish, 'stop');
  t.is(got.usageChunks.length, 1);
  t.is(got.chunks.at(-1), got.usageChunks[0]);
  t.like(got.usageChunks[0]!.usage, { prompt_tokens: 15, completion_tokens: 78, total_tokens: 93 });
  const filterChunks = got.chunks.filter((c) => 'prompt_filter_results' in c);
  t.true(filterChunks.length <= 1);
  if (filterChunks.length) t.is(filterChunks[0]!.usage, undefined);
});

test('stream without include_usage: no usage chunk, first-chunk filter results harmless', async (t) => {
  const { client } = await setup(t, (_r, res) => replySse(res, fixture(ROUTER_SSE)));
  const got = await assemble(await client.chat.completions.create({ model: DEPLOYMENT, messages: [{ role: 'user', content: 'x' }], stream: true }));
  t.is(got.usageChunks.length, 0);
  t.is(got.finish, 'stop');
  t.truthy(got.content);
});

test('stream tool call (OpenAI wire recording): index/id/arguments reassembled', async (t) => {
  const sse = fixture('openai/vercel-ai/chat.stream.tool-call-deltas.sse');
  const { up, client } = await setup(t, (_r, res) => replySse(res, sse));
  const tool = { type: 'function' as const, function: { name: 'test-tool', parameters: { type: 'object', properties: { value: { type: 'string' } } } } };
  const got = await assemble(
    await client.chat.completions.create({ model: DEPLOYMENT, messages: [{ role: 'user', content: 'x' }], tools: [tool], stream: true }),
  );
  t.deepEqual(up.received[0]!.json.tools, [tool]);
  const args = frames(sse)
    .filter((f) => f.data !== '[DONE]')
    .map((f) => JSON.parse(f.data).choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '')
    .join('');
  t.deepEqual(got.toolCalls, [{ id: 'call_O17Uplv4lJvD6DVdIvFFeRMw', name: 'test-tool', arguments: args }]);
  t.notThrows(() => JSON.parse(args));
  t.is(got.finish, 'tool_calls');
});

test('tool result round trip: messages forwarded as sent', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, fixture('azure/vercel-ai/azure-deepseek-reasoning.1.json')));
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'user', content: 'x' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'test-tool', arguments: '{"value":"v"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
  ];
  await client.chat.completions.create({ model: DEPLOYMENT, messages });
  t.deepEqual(up.received[0]!.json.messages, messages);
});

test('model discovery: /openai/v1/models, or /openai/models?api-version=', async (t) => {
  const { up, client } = await setup(t, (_r, res) => replyJson(res, 200, { object: 'list', data: [{ id: 'gpt-5-nano', object: 'model' }] }), '');
  t.deepEqual(
    (await client.models.list()).data.map((m) => m.id),
    ['gpt-5-nano'],
  );
  t.is(up.received[0]!.url, '/openai/v1/models');
  t.is(up.received[0]!.headers['api-key'], 'az-upstream-key');
  const up2 = await startUpstream((_r, res) => replyJson(res, 200, { object: 'list', data: [{ id: 'gpt-4o', object: 'model' }] }));
  const gw2 = await startGateway(baseConfig(`[providers.azure]\napi_key = "k"\nbase_url = "${up2.origin}"\napi_version = "2024-10-21"\n`));
  t.teardown(async () => {
    await gw2.stop();
    await up2.close();
  });
  t.is(up2.received[0]!.url, '/openai/models?api-version=2024-10-21');
});

test('Azure content_filter 400 kept; 500 → 502 with upstream status', async (t) => {
  let status = 400;
  const { gw } = await setup(t, (_r, res) =>
    replyJson(
      res,
      status,
      status === 400
        ? {
            error: {
              code: 'content_filter',
              message: 'The response was filtered',
              param: 'prompt',
              status: 400,
              innererror: { code: 'ResponsibleAIPolicyViolation' },
            },
          }
        : { error: { code: 'InternalServerError', message: 'Backend error' } },
    ),
  );
  const r400 = await post(gw.url, { model: DEPLOYMENT, messages: [{ role: 'user', content: 'x' }] });
  t.is(r400.status, 400);
  t.like(((await r400.json()) as any).error, { code: 'content_filter', param: 'prompt' });
  status = 500;
  const r500 = await post(gw.url, { model: DEPLOYMENT, messages: [{ role: 'user', content: 'x' }] });
  t.is(r500.status, 502);
  t.like(((await r500.json()) as any).error, { upstream_status: 500 });
});

test('config without base_url is rejected naming it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-azure-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const err = await t.throwsAsync(startGateway(baseConfig(`[providers.azure]\napi_key = "k"\nmodels = ["x"]\n`), { dir }));
  t.regex(err!.message, /base_url/);
});
