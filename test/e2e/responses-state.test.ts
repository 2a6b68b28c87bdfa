/**
 * Stored responses: `store` (default true), `previous_response_id` continuing a stored
 * conversation on a translated kind, GET / DELETE / input_items with the openai SDK, the
 * key that created a response as its only reader (another key: 404), `[responses] ttl_days`
 * validation, and two instances sharing one Redis store.
 */
import test from 'ava';
import OpenAI from 'openai';
import { writeFile } from 'node:fs/promises';
import { ADMIN_TOKEN, baseConfig, KEY2, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { redisFor } from '../helpers/redis.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { KEY, providerToml, replyMessages, rig } from './responses-helpers.ts';

const MODEL = 'claude-sonnet-4-5';
const tools: OpenAI.Responses.FunctionTool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Weather in a city',
    strict: false,
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

/** A Messages upstream: a get_weather call for a user question, an answer naming how many messages it got for a tool result. */
function scripted(up: { received: unknown[] }) {
  return (req: { json: any }, res: Parameters<typeof replyMessages>[0]) => {
    const hasResult = JSON.stringify(req.json.messages.at(-1)).includes('tool_result');
    replyMessages(
      res,
      req.json.stream === true,
      hasResult
        ? { text: `turn ${up.received.length}: ${req.json.messages.length} messages` }
        : { calls: [{ id: `toolu_${up.received.length}`, name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    );
  };
}

async function weatherRig(t: import('ava').ExecutionContext, extra = '') {
  const r = await rig(t, 'anthropic', MODEL, (req, res) => scripted(r.up)(req, res), extra);
  return r;
}

test('previous_response_id on a translated kind: the stored conversation goes upstream, the client sends only the new items', async (t) => {
  const { up, client } = await weatherRig(t);
  const first = await client.responses.create({ model: MODEL, input: 'Weather in Paris?', instructions: 'Use tools.', tools });
  const call = first.output.find((o) => o.type === 'function_call')!;
  if (call.type !== 'function_call') return t.fail();
  const second = await client.responses
    .stream({ model: MODEL, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: '18C' }], tools })
    .finalResponse();
  t.is(second.previous_response_id, first.id);
  t.is(second.output_text, 'turn 2: 3 messages');
  const sent = up.received[1]!.json;
  t.is(sent.system, undefined, 'instructions are not carried over (OpenAI semantics)');
  t.deepEqual(
    sent.messages.map((m: any) => m.role),
    ['user', 'assistant', 'user'],
  );
  t.like(sent.messages[1].content[0], { type: 'tool_use', id: call.call_id, name: 'get_weather', input: { city: 'Paris' } });
  t.like(sent.messages[2].content[0], { type: 'tool_result', tool_use_id: call.call_id, content: '18C' });

  // a third turn continues the second: the whole chain, in order
  const third = await client.responses.create({ model: MODEL, previous_response_id: second.id, input: 'And tomorrow?', tools });
  t.is(third.output[0]!.type, 'function_call');
  t.deepEqual(
    up.received[2]!.json.messages.map((m: any) => m.role),
    ['user', 'assistant', 'user', 'assistant', 'user'],
  );
  t.like(up.received[2]!.json.messages[3].content[0], { type: 'text', text: 'turn 2: 3 messages' });

  // input_items: the conversation the third response was made from, newest first by default
  const items = await client.responses.inputItems.list(third.id);
  const types = items.data.map((i) => i.type);
  t.deepEqual(types, ['message', 'message', 'function_call_output', 'function_call', 'message']);
  t.true(items.data.every((i) => typeof i.id === 'string' && i.id !== ''));
  const asc = await client.responses.inputItems.list(third.id, { order: 'asc', limit: 2 });
  t.deepEqual(
    asc.data.map((i) => i.type),
    ['message', 'function_call'],
  );
  t.true(asc.has_more);
  const next = await client.responses.inputItems.list(third.id, { order: 'asc', after: asc.data[1]!.id });
  t.deepEqual(
    next.data.map((i) => i.type),
    ['function_call_output', 'message', 'message'],
  );
});

test('retrieve and delete a stored response; another key gets 404 for all of it; store: false keeps nothing', async (t) => {
  const { gw, client } = await weatherRig(t);
  const other = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY2, maxRetries: 0 });
  const created = await client.responses.create({ model: MODEL, input: 'Weather in Paris?', tools, metadata: { ticket: '42' } });
  const got = await client.responses.retrieve(created.id);
  t.deepEqual(got, created);

  for (const call of [
    () => other.responses.retrieve(created.id),
    () => other.responses.delete(created.id),
    () => other.responses.inputItems.list(created.id).then((p) => p.data),
  ]) {
    const err = await t.throwsAsync(call(), { instanceOf: OpenAI.NotFoundError });
    t.regex(err!.message, new RegExp(created.id));
  }
  const cont = await t.throwsAsync(other.responses.create({ model: MODEL, previous_response_id: created.id, input: 'more' }), {
    instanceOf: OpenAI.NotFoundError,
  });
  t.regex(cont!.message, /previous response/);
  t.deepEqual(await client.responses.retrieve(created.id), created, 'the other key changed nothing');

  const del = await fetch(`${gw.baseURL}/responses/${created.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}` } });
  t.is(del.status, 200);
  t.deepEqual(await del.json(), { id: created.id, object: 'response', deleted: true });
  await t.throwsAsync(client.responses.retrieve(created.id), { instanceOf: OpenAI.NotFoundError });
  await t.throwsAsync(client.responses.delete(created.id), { instanceOf: OpenAI.NotFoundError });

  const unstored = await client.responses.create({ model: MODEL, input: 'Weather in Paris?', tools, store: false });
  t.false((unstored as unknown as { store: boolean }).store);
  await t.throwsAsync(client.responses.retrieve(unstored.id), { instanceOf: OpenAI.NotFoundError });
  const e = await t.throwsAsync(client.responses.create({ model: MODEL, previous_response_id: unstored.id, input: 'more' }), {
    instanceOf: OpenAI.NotFoundError,
  });
  t.regex(e!.message, /previous response/);
});

test('a streamed response is stored before its response.completed reaches the client', async (t) => {
  const { client } = await weatherRig(t);
  const stream = client.responses.stream({ model: MODEL, input: 'Weather in Paris?', tools });
  let id: string | undefined;
  let retrieved: OpenAI.Responses.Response | undefined;
  for await (const ev of stream) {
    if (ev.type === 'response.created') id = ev.response.id;
    if (ev.type === 'response.completed') retrieved = await client.responses.retrieve(id!);
  }
  t.is(retrieved?.id, id);
  t.is(retrieved?.status, 'completed');
  const final = await stream.finalResponse();
  t.deepEqual(
    retrieved?.output.map((o) => o.id),
    final.output.map((o) => o.id),
  );
  t.deepEqual(retrieved?.usage, final.usage);
});

test('[responses] ttl_days is validated at startup, naming the key', async (t) => {
  const up = await startUpstream(() => undefined);
  t.teardown(() => up.close());
  const err = await t.throwsAsync(startGateway(baseConfig(`${providerToml('anthropic', up.origin, MODEL)}\n[responses]\nttl_days = 0\n`)));
  t.regex(err!.message, /responses\.ttl_days/);
  const err2 = await t.throwsAsync(startGateway(baseConfig(`${providerToml('anthropic', up.origin, MODEL)}\n[responses]\nttl = 3\n`)));
  t.regex(err2!.message, /responses/);
});

test('[responses] is read at startup: a reload that changes it keeps the running value and warns', async (t) => {
  const up = await startUpstream(() => undefined);
  const toml = (days: number) => baseConfig(`${providerToml('anthropic', up.origin, MODEL)}\n[responses]\nttl_days = ${days}\n`);
  const gw = await startGateway(toml(30));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  await writeFile(gw.configPath, toml(7));
  const r = await fetch(`${gw.url}/v1/admin/reload`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.is(r.status, 200);
  t.true(((await r.json()) as { warnings: string[] }).warnings.some((w) => w.startsWith('[responses] changed')));
});

test('two instances on one Redis store: a response created on one is read, continued and deleted on the other', async (t) => {
  const r = await redisFor(t);
  if (!r) return;
  const upRef: { received: unknown[] } = { received: [] };
  const up = await startUpstream((req, res) => scripted(upRef)(req, res));
  upRef.received = up.received;
  const gws: TestGateway[] = [];
  t.teardown(async () => {
    for (const g of gws) await g.stop();
    await up.close();
  });
  const toml = baseConfig(`${providerToml('anthropic', up.origin, MODEL)}\n[store]\nurl = "${r.url}"\n`);
  gws.push(await startGateway(toml), await startGateway(toml));
  const [a, b] = gws.map((g) => new OpenAI({ baseURL: g.baseURL, apiKey: KEY, maxRetries: 0 }));
  const first = await a!.responses.create({ model: MODEL, input: 'Weather in Paris?', tools });
  t.deepEqual(await b!.responses.retrieve(first.id), first);
  const call = first.output[0]!;
  if (call.type !== 'function_call') return t.fail();
  const second = await b!.responses.create({
    model: MODEL,
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: '18C' }],
    tools,
  });
  t.is(second.output_text, 'turn 2: 3 messages');
  await b!.responses.delete(first.id);
  await t.throwsAsync(a!.responses.retrieve(first.id), { instanceOf: OpenAI.NotFoundError });
  t.is((await a!.responses.retrieve(second.id)).id, second.id);
});
