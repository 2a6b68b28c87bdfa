/**
 * previous_response_id bounds through gw (issue 23): the history gw expands into a request is
 * bounded by `max_body_bytes` (a continuation on the native provider that stored it expands
 * nothing, so nothing bounds it), a conversation by `[responses] max_chain_length`, and a
 * stored response gw can no longer expand (an earlier response deleted, a damaged record) is
 * a 4xx on every route that reads it, never a 500. The official openai client and plain fetch.
 */
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { replyJson, startUpstream, type MockUpstream } from '../helpers/upstream.ts';
import { providerToml, replyMessages } from './responses-helpers.ts';

const CLAUDE = 'claude-sonnet-4-5';
const GPT = 'gpt-5.1';
const LIMIT = 65_536;
/** A turn's input: three of them with their answers are over LIMIT, two are not. */
const BIG = 'x'.repeat(24_000);

interface Bed {
  gw: TestGateway;
  client: OpenAI;
  /** The translated kind's upstream (Messages) and the native one (Responses). */
  anth: MockUpstream;
  openai: MockUpstream;
}

/** gw with a translated (anthropic) and a native (openai) provider; `head`: top-level settings, `tail`: sections. */
async function bed(t: ExecutionContext, head = '', tail = ''): Promise<Bed> {
  const anth = await startUpstream((req, res) => replyMessages(res, req.json.stream === true, { text: 'ok' }));
  let n = 0;
  const openai = await startUpstream((_req, res) =>
    replyJson(res, 200, {
      id: `resp_native${++n}`,
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: GPT,
      output: [
        { type: 'message', id: `msg_native${n}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [] }] },
      ],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    }),
  );
  const gw = await startGateway(
    `${head}${baseConfig(`${providerToml('anthropic', anth.origin, CLAUDE)}\n${providerToml('openai', openai.origin, GPT)}\n${tail}`)}`,
  );
  t.teardown(async () => {
    await gw.stop();
    await anth.close();
    await openai.close();
  });
  return { gw, anth, openai, client: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }) };
}

function post(gw: TestGateway, body: unknown): Promise<Response> {
  return fetch(`${gw.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function get(gw: TestGateway, path: string): Promise<Response> {
  return fetch(`${gw.baseURL}/responses/${path}`, { headers: { authorization: `Bearer ${KEY}` } });
}

test('the history expanded into a request is bounded by max_body_bytes: 400 naming the limit and previous_response_id, nothing sent upstream', async (t) => {
  const { gw, client, anth } = await bed(t, `max_body_bytes = ${LIMIT}\n`);
  const r1 = await client.responses.create({ model: CLAUDE, input: BIG });
  const r2 = await client.responses.create({ model: CLAUDE, input: BIG, previous_response_id: r1.id });
  const err = await t.throwsAsync(client.responses.create({ model: CLAUDE, input: BIG, previous_response_id: r2.id }), {
    instanceOf: OpenAI.BadRequestError,
  });
  t.like(err, { status: 400, code: 'conversation_too_large', param: 'previous_response_id' });
  t.regex(err!.message, /previous_response_id: .*larger than max_body_bytes \(65536 bytes\)/);
  t.is(anth.received.length, 2);

  // streamed: the same 400, as JSON, before any event
  const r = await post(gw, { model: CLAUDE, input: BIG, previous_response_id: r2.id, stream: true });
  t.is(r.status, 400);
  t.like(((await r.json()) as { error: unknown }).error, { type: 'invalid_request_error', code: 'conversation_too_large', param: 'previous_response_id' });
  t.is(anth.received.length, 2);

  // the bound is the size, not the turn count: a short third turn fits, and gw keeps serving
  const r3 = await client.responses.create({ model: CLAUDE, input: 'short', previous_response_id: r2.id });
  t.is(r3.output_text, 'ok');
  t.is(anth.received[2]!.json.messages.length, 5);
  t.true(anth.received[2]!.body.length < LIMIT);
});

test('a continuation on the native provider that stored the conversation expands nothing and is not bounded; on another provider it is', async (t) => {
  const { client, openai, anth } = await bed(t, `max_body_bytes = ${LIMIT}\n`);
  const n1 = await client.responses.create({ model: GPT, input: BIG });
  const n2 = await client.responses.create({ model: GPT, input: BIG, previous_response_id: n1.id });
  const n3 = await client.responses.create({ model: GPT, input: BIG, previous_response_id: n2.id });
  t.is(openai.received[2]!.json.previous_response_id, n2.id, 'forwarded as the id');
  t.is(openai.received[2]!.json.input, BIG);
  const err = await t.throwsAsync(client.responses.create({ model: CLAUDE, input: 'and now?', previous_response_id: n3.id }), {
    instanceOf: OpenAI.BadRequestError,
  });
  t.like(err, { code: 'conversation_too_large', param: 'previous_response_id' });
  t.is(anth.received.length, 0);
});

test('the input items an expanded chain sends upstream are capped in total like input: 400 naming previous_response_id, translated and native, nothing sent', async (t) => {
  const { gw, client, anth, openai } = await bed(t);
  // 70,000 items stored, then 60,000 more: each under the cap of 120,000, together over it
  const items = (n: number, text: string) => Array.from({ length: n }, () => ({ role: 'user' as const, content: text }));
  const r1 = await client.responses.create({ model: CLAUDE, input: items(70_000, 'a') });
  t.is(anth.received.length, 1);
  for (const model of [CLAUDE, GPT]) {
    const r = await post(gw, { model, input: items(60_000, 'b'), previous_response_id: r1.id });
    t.is(r.status, 400, model);
    t.like(((await r.json()) as { error: unknown }).error, { type: 'invalid_request_error', code: 'invalid_request_body', param: 'previous_response_id' });
  }
  const err = await t.throwsAsync(client.responses.create({ model: CLAUDE, input: items(60_000, 'b'), previous_response_id: r1.id }), {
    instanceOf: OpenAI.BadRequestError,
  });
  t.regex(err!.message, /input: at most 120000 input items per request, counting those of the conversation previous_response_id continues/);
  t.is(anth.received.length, 1);
  t.is(openai.received.length, 0);
  // within the cap the chain still goes up whole
  const ok = await client.responses.create({ model: CLAUDE, input: items(40_000, 'b'), previous_response_id: r1.id });
  t.is(ok.output_text, 'ok');
  t.is(anth.received.length, 2);
});

test('[responses] max_chain_length bounds a conversation: 400 naming it; validated at startup', async (t) => {
  const { gw, client, anth } = await bed(t, '', '[responses]\nmax_chain_length = 2\n');
  const r1 = await client.responses.create({ model: CLAUDE, input: 'one' });
  const r2 = await client.responses.create({ model: CLAUDE, input: 'two', previous_response_id: r1.id });
  const r3 = await client.responses.create({ model: CLAUDE, input: 'three', previous_response_id: r2.id });
  const err = await t.throwsAsync(client.responses.create({ model: CLAUDE, input: 'four', previous_response_id: r3.id }), {
    instanceOf: OpenAI.BadRequestError,
  });
  t.like(err, { code: 'conversation_too_long', param: 'previous_response_id' });
  t.regex(err!.message, /more than 2 responses \(\[responses\] max_chain_length\)/);
  t.is(anth.received.length, 3);
  const r = await post(gw, { model: CLAUDE, input: 'four', previous_response_id: r3.id });
  t.is(r.status, 400);
  t.like(((await r.json()) as { error: unknown }).error, { code: 'conversation_too_long', param: 'previous_response_id' });

  for (const bad of ['0', '10001', '2.5']) {
    const up = await startUpstream(() => undefined);
    const e = await t.throwsAsync(startGateway(baseConfig(`${providerToml('anthropic', up.origin, CLAUDE)}\n[responses]\nmax_chain_length = ${bad}\n`)));
    await up.close();
    t.regex(e!.message, /responses\.max_chain_length/);
  }
});

test('a chain gw can no longer expand is a 4xx on every route, never a 500: an earlier response deleted (404), a damaged record (409)', async (t) => {
  const { gw, client } = await bed(t);
  const r1 = await client.responses.create({ model: CLAUDE, input: 'one' });
  const r2 = await client.responses.create({ model: CLAUDE, input: 'two', previous_response_id: r1.id });
  const r3 = await client.responses.create({ model: CLAUDE, input: 'three', previous_response_id: r2.id });
  const r4 = await client.responses.create({ model: CLAUDE, input: 'four', previous_response_id: r3.id });

  await client.responses.delete(r2.id);
  const gone = await t.throwsAsync(client.responses.create({ model: CLAUDE, input: 'more', previous_response_id: r3.id }), {
    instanceOf: OpenAI.NotFoundError,
  });
  t.regex(gone!.message, new RegExp(r2.id));
  t.like(gone, { param: 'previous_response_id' });

  const store = gw.running.gateway.store.namespace('format:openai-responses');
  await store.set(`r:${r1.id}:default`, '{"response":');
  await store.set(`r:${r4.id}:default`, JSON.stringify({ response: { id: r4.id }, input: 5, chain: [] }));

  // an earlier response damaged: the continuation names it
  const damaged = await t.throwsAsync(client.responses.create({ model: CLAUDE, input: 'more', previous_response_id: r3.id }), {
    instanceOf: OpenAI.ConflictError,
  });
  t.like(damaged, { status: 409, code: 'response_unreadable', param: 'previous_response_id' });
  t.regex(damaged!.message, new RegExp(r1.id));
  // the continued response itself damaged
  const own = await post(gw, { model: CLAUDE, input: 'more', previous_response_id: r4.id });
  t.is(own.status, 409);
  t.like(((await own.json()) as { error: unknown }).error, { code: 'response_unreadable', param: 'previous_response_id' });

  for (const id of [r1.id, r4.id]) {
    for (const path of [id, `${id}/input_items`]) {
      const r = await get(gw, path);
      t.is(r.status, 409, path);
      t.like(((await r.json()) as { error: unknown }).error, { code: 'response_unreadable', param: 'response_id' });
    }
  }
  // r3's own record is fine: its input items list what is left of its conversation
  const items = await client.responses.inputItems.list(r3.id, { order: 'asc' });
  t.deepEqual(
    items.data.map((i) => (i.type === 'message' ? (i.content[0] as { text: string }).text : i.type)),
    ['three'],
  );
  // a damaged record can still be deleted
  await client.responses.delete(r1.id);
  t.is((await get(gw, r1.id)).status, 404);
});
