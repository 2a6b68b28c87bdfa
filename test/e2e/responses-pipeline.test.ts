/**
 * POST /v1/responses through the rest of the pipeline: dropped built-in tools
 * (x-gw-dropped-tools, logged, a forcing tool_choice → 400), errors naming the field,
 * usage, budget (reservation from max_output_tokens), rate limits, metrics, retries,
 * fallbacks (a native conversation continued on a translated fallback), and the cache
 * (non-streaming requests without previous_response_id only).
 */
import test from 'ava';
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { ADMIN_TOKEN, baseConfig, KEY2, startGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, startUpstream } from '../helpers/upstream.ts';
import { admin } from '../helpers/ext-helpers.ts';
import { KEY, providerToml, replyMessages, rig } from './responses-helpers.ts';

const MODEL = 'claude-sonnet-4-5';
const PRICING = `[pricing."${MODEL}"]\ninput_per_mtok = 10\noutput_per_mtok = 10000\n`;

function post(gw: { baseURL: string }, body: unknown, key = KEY): Promise<Response> {
  return fetch(`${gw.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const answer = (req: { json: any }, res: Parameters<typeof replyMessages>[0]) => replyMessages(res, req.json.stream === true, { text: 'ok' });

test('built-in tools a translated kind cannot run: dropped, logged, named in x-gw-dropped-tools; a tool_choice forcing one → 400 naming it', async (t) => {
  const { up, gw } = await rig(t, 'anthropic', MODEL, answer, '', { level: 'info' });
  const tools = [
    { type: 'web_search' },
    { type: 'file_search', vector_store_ids: ['vs_1'] },
    { type: 'mcp', server_label: 'deepwiki', server_url: 'https://example.invalid/mcp' },
    { type: 'function', name: 'f', parameters: { type: 'object' } },
  ];
  const r = await post(gw, { model: MODEL, input: 'hi', tools });
  t.is(r.status, 200);
  t.is(r.headers.get('x-gw-dropped-tools'), 'web_search, file_search, mcp:deepwiki');
  t.deepEqual(
    up.received[0]!.json.tools.map((x: any) => x.name),
    ['f'],
  );
  // the log counts them; their types and names are the client's, named to it in the header only
  t.true(gw.logs.some((l) => l.includes('built-in tools dropped') && l.includes('"dropped":3')));
  t.false(gw.logs.some((l) => l.includes('deepwiki')));
  const body = (await r.json()) as any;
  t.deepEqual(
    body.tools.map((x: any) => x.type),
    ['web_search', 'file_search', 'mcp', 'function'],
    'the response echoes the tools as declared',
  );

  // the recorded Codex request: its web_search is dropped, its namespace flattened
  const codex = JSON.parse(readFileSync(new URL('../fixtures/responses/codex-0.169-request.json', import.meta.url), 'utf8')).body;
  const rc = await post(gw, { ...codex, model: MODEL });
  t.is(rc.status, 200);
  t.is(rc.headers.get('x-gw-dropped-tools'), 'web_search');
  await rc.text();
  t.true(up.received[1]!.json.tools.some((x: any) => x.name.startsWith('multi_agent_v1__')));

  const forced = await post(gw, { model: MODEL, input: 'hi', tools, tool_choice: { type: 'file_search' } });
  t.is(forced.status, 400);
  const err = (await forced.json()) as any;
  t.like(err.error, { type: 'invalid_request_error', param: 'tool_choice' });
  t.regex(err.error.message, /file_search/);
  t.is(up.received.length, 2, 'refused before any upstream call');
});

test('errors in OpenAI shape naming the field', async (t) => {
  const { up, gw } = await rig(t, 'anthropic', MODEL, answer);
  const cases: Array<[unknown, number, string | null]> = [
    [{ input: 'hi' }, 400, 'model'],
    [{ model: MODEL, input: 5 }, 400, 'input'],
    [{ model: MODEL, input: 'hi', max_output_tokens: 0 }, 400, 'max_output_tokens'],
    [{ model: MODEL, input: 'hi', temperature: 9 }, 400, 'temperature'],
    [{ model: MODEL, input: [{ type: 'message', role: 'tool', content: 'x' }] }, 400, 'input[0].role'],
    [{ model: MODEL, input: [{ type: 'function_call_output', call_id: 'nope', output: 'x' }] }, 400, 'input[0].call_id'],
    [{ model: MODEL, input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] }, 400, 'input[0].content[0].file_id'],
    [{ model: MODEL, input: 'hi', background: true }, 400, 'background'],
    [{ model: 'no-such-model', input: 'hi' }, 404, 'model'],
    [{ model: MODEL, input: 'hi', previous_response_id: 'resp_unknown' }, 404, 'previous_response_id'],
  ];
  for (const [body, status, param] of cases) {
    const r = await post(gw, body);
    const e = (await r.json()) as any;
    t.is(r.status, status, JSON.stringify(body));
    t.is(e.error.param, param, JSON.stringify(e));
    t.is(typeof e.error.message, 'string');
  }
  t.is(up.received.length, 0);
  const unauth = await post(gw, { model: MODEL, input: 'hi' }, 'sk-wrong');
  t.is(unauth.status, 401);
  t.is(((await unauth.json()) as any).error.code, 'invalid_api_key');
});

test('usage and budget count Responses requests (stream and not); the budget reserves from max_output_tokens while a request is in flight', async (t) => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const { up, gw, client } = await rig(
    t,
    'anthropic',
    MODEL,
    async (req, res) => {
      if (req.json.max_tokens === 90) await gate;
      replyMessages(res, req.json.stream === true, { text: 'ok' }); // 21 in, 9 out
    },
    `${PRICING}\n[extensions.usage]\n[extensions.budget]\ndefault_budget = 1.0\n`,
  );
  await client.responses.create({ model: MODEL, input: 'a', max_output_tokens: 20 });
  await client.responses.stream({ model: MODEL, input: 'b', max_output_tokens: 20 }).finalResponse();
  const usage = (await admin(gw, 'GET', '/v1/usage')).body.find((u: any) => u.key === 'default' && u.model === MODEL);
  t.like(usage, { requests: 2, prompt_tokens: 42, completion_tokens: 18 });
  const spent = (await admin(gw, 'GET', '/v1/budget')).body.find((b: any) => b.key === 'default');
  t.is(spent.spent_usd, Math.round(((2 * (21 * 10 + 9 * 10_000)) / 1e6) * 1e9) / 1e9);

  // 90 output tokens reserve $0.9: with $0.18 spent, nothing else fits while it is in flight
  const slow = client.responses.create({ model: MODEL, input: 'c', max_output_tokens: 90 });
  while (up.received.length < 3) await new Promise((r) => setTimeout(r, 5));
  const refused = await post(gw, { model: MODEL, input: 'd', max_output_tokens: 10 });
  t.is(refused.status, 429);
  t.is(((await refused.json()) as any).error.code, 'budget_exceeded');
  release();
  await slow;
  t.is((await admin(gw, 'GET', '/v1/budget')).body.find((b: any) => b.key === 'default').reserved_usd, 0);
});

test('rate limits, metrics, retries and x-gw-* headers on /v1/responses', async (t) => {
  let n = 0;
  const { gw } = await rig(
    t,
    'anthropic',
    MODEL,
    (req, res) => (n++ === 0 ? replyJson(res, 529, fixture('anthropic/vercel-ai/error.529.overloaded.json')) : answer(req, res)),
    '[extensions.rate_limit]\nrequests_per_minute = 2\n',
  );
  // max_retries = 0 in the rig: a retrying provider section instead
  const retryUp = await startUpstream((req, res) =>
    retryUp.received.length === 1 ? replyJson(res, 529, fixture('anthropic/vercel-ai/error.529.overloaded.json')) : answer(req, res),
  );
  const gw2 = await startGateway(baseConfig(providerToml('anthropic', retryUp.origin, MODEL).replace('max_retries = 0', 'max_retries = 1')));
  t.teardown(async () => {
    await gw2.stop();
    await retryUp.close();
  });
  const r = await post(gw2, { model: MODEL, input: 'hi' });
  t.is(r.status, 200);
  t.is(r.headers.get('x-gw-provider'), 'anthropic');
  t.is(r.headers.get('x-gw-attempts'), '2');
  t.truthy(r.headers.get('x-request-id'));

  t.is((await post(gw, { model: MODEL, input: 'hi' })).status, 502); // the 529, no retry
  t.is((await post(gw, { model: MODEL, input: 'hi' })).status, 200);
  const limited = await post(gw, { model: MODEL, input: 'hi' });
  t.is(limited.status, 429);
  t.is(((await limited.json()) as any).error.code, 'rate_limit_exceeded');
  const metrics = await (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  t.regex(metrics, /gw_requests_total\{[^}]*route="responses"[^}]*status="200"[^}]*\} 1/);
  t.regex(metrics, /gw_requests_total\{[^}]*route="responses"[^}]*status="429"[^}]*\} 1/);
});

test('fallbacks: a native provider failing falls back to a translated model, a natively stored conversation expanded for it', async (t) => {
  let failOpenai = false;
  const openaiUp = await startUpstream((_req, res) =>
    failOpenai
      ? replyJson(res, 500, { error: { message: 'boom', type: 'server_error' } })
      : replyJson(res, 200, fixture('responses/spec-examples/functions.response.json')),
  );
  const anthUp = await startUpstream(answer);
  const gw = await startGateway(
    baseConfig(
      `${providerToml('openai', openaiUp.origin, 'gpt-5.4')}\n${providerToml('anthropic', anthUp.origin, MODEL)}\n[fallbacks]\n"gpt-5.4" = ["${MODEL}"]\n`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await openaiUp.close();
    await anthUp.close();
  });
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 });
  const first = await client.responses.create({ model: 'gpt-5.4', input: 'Weather in Boston?' });
  const call = first.output[0]!;
  if (call.type !== 'function_call') return t.fail();
  failOpenai = true;
  const r = await post(gw, {
    model: 'gpt-5.4',
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: '20C' }],
  });
  t.is(r.status, 200);
  t.is(r.headers.get('x-gw-provider'), 'anthropic');
  t.is(r.headers.get('x-gw-attempts'), '2');
  const sent = anthUp.received[0]!.json;
  t.deepEqual(
    sent.messages.map((m: any) => m.role),
    ['user', 'assistant', 'user'],
  );
  t.like(sent.messages[1].content[0], { type: 'tool_use', id: call.call_id, name: 'get_current_weather' });
  t.like(sent.messages[2].content[0], { type: 'tool_result', tool_use_id: call.call_id, content: '20C' });
  t.is(((await r.json()) as any).model, 'gpt-5.4', 'the model the client asked for');
});

test('cache: a repeated non-stream request is a hit (and readable by the key that got it); streams and previous_response_id are never cached', async (t) => {
  const { up, gw } = await rig(t, 'anthropic', MODEL, answer, '[extensions.cache]\n');
  const body = { model: MODEL, input: 'cache me' };
  const a = await post(gw, body);
  t.is(a.headers.get('x-gw-cache'), 'miss');
  const first = (await a.json()) as any;
  const b = await post(gw, body, KEY2);
  t.is(b.headers.get('x-gw-cache'), 'hit');
  t.is(((await b.json()) as any).id, first.id);
  t.is(up.received.length, 1);
  const other = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY2, maxRetries: 0 });
  t.is((await other.responses.retrieve(first.id)).id, first.id, 'the hit was stored for the key that got it');

  for (let i = 0; i < 2; i++) await (await post(gw, { ...body, stream: true })).text();
  t.is(up.received.length, 3);
  const cont = { model: MODEL, input: 'again', previous_response_id: first.id };
  for (let i = 0; i < 2; i++) {
    const r = await post(gw, cont);
    t.is(r.status, 200);
    t.is(r.headers.get('x-gw-cache'), null);
  }
  t.is(up.received.length, 5);
});
