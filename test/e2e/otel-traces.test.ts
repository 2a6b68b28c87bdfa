/**
 * The otel extension's traces, decoded by a local OTLP receiver from gw's protobuf exports:
 * the span tree of a chat completion, a retry and a fallback (one CLIENT span per attempt,
 * each a child of the request's SERVER span), the GenAI attribute names and values checked
 * against @opentelemetry/semantic-conventions' own constants, usage and cost equal to the
 * request log's, and W3C trace context end to end (the client's traceparent is the parent,
 * the upstream receives a child's, the answer and the request log carry the trace id).
 */
import { ATTR_ERROR_TYPE, ATTR_HTTP_RESPONSE_STATUS_CODE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  METRIC_GEN_AI_SERVER_REQUEST_DURATION,
} from '@opentelemetry/semantic-conventions/incubating';
import test from 'ava';
import { ADMIN_TOKEN, KEY } from '../helpers/gateway.ts';
import { replyJson } from '../helpers/upstream.ts';
import { CLIENT, localProvider, post, SERVER, setupOtel, traceOf } from './otel-helpers.ts';

const COMPLETION = {
  id: 'chatcmpl-otel-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-2024-08-06',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there, traveller of the wide world' }, finish_reason: 'stop' }],
  usage: {
    prompt_tokens: 1200,
    completion_tokens: 340,
    total_tokens: 1540,
    prompt_tokens_details: { cached_tokens: 1024 },
    completion_tokens_details: { reasoning_tokens: 128 },
  },
};
const openai = (origin: string, extra = '') =>
  `[providers.openai]\napi_key = "sk-upstream-0123456789abcdef"\nbase_url = "${origin}/v1"\nmodels = ["gpt-4o"]\n${extra}\n[pricing."gpt-4o"]\ninput_per_mtok = 2.5\noutput_per_mtok = 10\n`;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

test('a chat completion: SERVER span child of the client traceparent, one CLIENT span with the GenAI attributes; the upstream gets its traceparent', async (t) => {
  const { up, rx, gw } = await setupOtel(
    t,
    (_r, res) => replyJson(res, 200, COMPLETION),
    (o) => openai(o),
    { extra: '[extensions.request_log]' },
  );
  const res = await post(
    `${gw.baseURL}/chat/completions`,
    { model: 'gpt-4o', messages: [{ role: 'user', content: 'secret user text' }], temperature: 0.2, top_p: 0.9, max_tokens: 400 },
    { traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'vendor=opaque' },
  );
  t.is(res.status, 200);
  t.is(res.headers.get('x-gw-trace-id'), TRACE);
  const { server, clients } = await traceOf(rx, TRACE, 1);
  t.is(clients.length, 1);
  const [client] = clients as [(typeof clients)[0]];

  // the tree: client's parent → SERVER → CLIENT
  t.is(server.parentSpanId, PARENT);
  t.is(server.name, 'POST /v1/chat/completions');
  t.is(client.parentSpanId, server.spanId);
  t.true(client.startMs >= server.startMs && client.endMs <= server.endMs);

  // the upstream got the CLIENT span as its parent, and the tracestate
  const tp = String(up.received[0]!.headers.traceparent);
  t.is(tp, `00-${TRACE}-${client.spanId}-01`);
  t.is(up.received[0]!.headers.tracestate, 'vendor=opaque');

  // names and values as the conventions' constants spell them
  t.is(client.name, `${GEN_AI_OPERATION_NAME_VALUE_CHAT} gpt-4o`);
  const a = client.attributes;
  t.is(a[ATTR_GEN_AI_OPERATION_NAME], GEN_AI_OPERATION_NAME_VALUE_CHAT);
  t.is(a[ATTR_GEN_AI_PROVIDER_NAME], GEN_AI_PROVIDER_NAME_VALUE_OPENAI);
  t.is(a[ATTR_GEN_AI_REQUEST_MODEL], 'gpt-4o');
  t.is(a[ATTR_GEN_AI_RESPONSE_MODEL], 'gpt-4o-2024-08-06');
  t.is(a[ATTR_GEN_AI_RESPONSE_ID], 'chatcmpl-otel-1');
  t.deepEqual(a[ATTR_GEN_AI_RESPONSE_FINISH_REASONS], ['stop']);
  t.is(a[ATTR_GEN_AI_REQUEST_TEMPERATURE], 0.2);
  t.is(a[ATTR_GEN_AI_REQUEST_TOP_P], 0.9);
  t.is(a[ATTR_GEN_AI_REQUEST_MAX_TOKENS], 400);
  t.is(a[ATTR_GEN_AI_USAGE_INPUT_TOKENS], 1200);
  t.is(a[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS], 340);
  t.is(a[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS], 1024);
  t.is(a[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS], 128);
  t.is(a['gw.provider'], 'openai');
  t.is(a['gw.attempt'], 1);
  // content is off by default: no message text anywhere
  t.false(ATTR_GEN_AI_INPUT_MESSAGES in a);
  t.false(ATTR_GEN_AI_OUTPUT_MESSAGES in a);
  t.false(JSON.stringify(rx.spans).includes('secret user text'));
  t.false(JSON.stringify(rx.spans).includes('traveller'));

  // the server span: route, key name (never the secret), status, overhead
  t.is(server.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE], 200);
  t.is(server.attributes['gw.key'], 'default');
  t.is(server.attributes['gw.cache_hit'], false);
  t.is(typeof server.attributes['gw.overhead_ms'], 'number');
  t.false(JSON.stringify(rx.spans).includes(KEY));
  t.false(JSON.stringify(rx.spans).includes('sk-upstream-0123456789abcdef'));
  t.is(server.resource['service.name'], 'gw');

  // usage and cost as the request log shows them, and its trace id
  let entry: Record<string, unknown> | undefined;
  for (let i = 0; i < 50 && !entry; i++) {
    const log = (await (await fetch(`${gw.baseURL}/requests?limit=1`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as Record<
      string,
      unknown
    >[];
    entry = log[0];
    if (!entry) await new Promise((r) => setTimeout(r, 20));
  }
  t.is(entry!.trace_id, TRACE);
  t.is(entry!.prompt_tokens, a[ATTR_GEN_AI_USAGE_INPUT_TOKENS]);
  t.is(entry!.completion_tokens, a[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]);
  t.is(entry!.cost_usd, a['gw.cost_usd']);
  t.is(a['gw.cost_usd'], (1200 * 2.5 + 340 * 10) / 1e6);
});

test('a request without traceparent starts a trace; 401 and 404 answers carry it and their SERVER spans are errors saying why', async (t) => {
  const { rx, gw } = await setupOtel(
    t,
    (_r, res) => replyJson(res, 200, COMPLETION),
    (o) => openai(o),
  );
  const ok = await post(`${gw.baseURL}/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  const id = ok.headers.get('x-gw-trace-id')!;
  t.regex(id, /^[0-9a-f]{32}$/);
  const { server } = await traceOf(rx, id, 1);
  t.is(server.parentSpanId, '');

  const denied = await fetch(`${gw.baseURL}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-wrong' }, body: '{}' });
  t.is(denied.status, 401);
  const deniedId = denied.headers.get('x-gw-trace-id')!;
  t.regex(deniedId, /^[0-9a-f]{32}$/);
  const missing = await post(`${gw.baseURL}/chat/completions`, { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] });
  t.is(missing.status, 404);
  const traces = await Promise.all([traceOf(rx, deniedId, 0), traceOf(rx, missing.headers.get('x-gw-trace-id')!, 0)]);
  t.is(traces[0].server.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE], 401);
  t.is(traces[0].server.attributes[ATTR_ERROR_TYPE], 'invalid_api_key');
  // a refusal is what an operator looks for: the SERVER span is an error, with the log-safe reason
  t.is(traces[0].server.status, 2);
  t.regex(traces[0].server.statusMessage, /key/i);
  t.is(traces[1].server.attributes[ATTR_ERROR_TYPE], 'model_not_found');
  t.is(traces[1].server.status, 2);
  t.is(traces[1].server.statusMessage, 'model: the requested model is not served by any provider');
  t.is(traces[1].server.attributes['gw.model'], 'no-such-model');
});

test('a retry: one CLIENT span per attempt under the SERVER span, the failed one with its error; each upstream call had its own traceparent', async (t) => {
  let n = 0;
  const { up, rx, gw } = await setupOtel(
    t,
    (_r, res) => (n++ === 0 ? replyJson(res, 500, { error: { message: 'boom', type: 'server_error' } }) : replyJson(res, 200, COMPLETION)),
    (o) => openai(o, 'max_retries = 1'),
  );
  const res = await post(`${gw.baseURL}/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  t.is(res.status, 200);
  const { server, clients } = await traceOf(rx, res.headers.get('x-gw-trace-id')!, 2);
  t.is(clients.length, 2);
  for (const c of clients) t.is(c.parentSpanId, server.spanId);
  const [failed, ok] = clients as [(typeof clients)[0], (typeof clients)[0]];
  t.is(failed.status, 2);
  t.is(failed.attributes[ATTR_ERROR_TYPE], 'upstream_error');
  t.is(failed.attributes['gw.retry'], 0);
  t.is(ok.status, 0);
  t.is(ok.attributes['gw.retry'], 1);
  t.is(ok.attributes['gw.attempt'], 2);
  t.is(ok.attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS], 1200);
  t.false(ATTR_GEN_AI_USAGE_INPUT_TOKENS in failed.attributes);
  t.is(server.attributes['gw.attempts'], 2);
  // the request's attributes are every attempt's, the retry's built again
  for (const c of clients) t.deepEqual([c.attributes[ATTR_GEN_AI_OPERATION_NAME], c.attributes[ATTR_GEN_AI_REQUEST_MODEL]], ['chat', 'gpt-4o']);
  t.deepEqual(
    up.received.map((r) => String(r.headers.traceparent).split('-')[2]),
    clients.map((c) => c.spanId),
  );
});

test('a fallback: the second model’s attempt is a CLIENT span of its own, on its own provider', async (t) => {
  const { up, rx, gw } = await setupOtel(
    t,
    (r, res) =>
      r.json.model === 'model-a' ? replyJson(res, 503, { error: { message: 'overloaded' } }) : replyJson(res, 200, { ...COMPLETION, model: 'model-b' }),
    (o) => `${localProvider(o, ['model-a', 'model-b'], 'max_retries = 0')}\n[fallbacks]\n"model-a" = ["model-b"]\n`,
  );
  const res = await post(`${gw.baseURL}/chat/completions`, { model: 'model-a', messages: [{ role: 'user', content: 'hi' }] });
  t.is(res.status, 200);
  const { server, clients } = await traceOf(rx, res.headers.get('x-gw-trace-id')!, 2);
  t.deepEqual(
    clients.map((c) => [c.name, c.attributes[ATTR_GEN_AI_REQUEST_MODEL], c.attributes['gw.fallback'], c.status, c.parentSpanId === server.spanId]),
    [
      ['chat model-a', 'model-a', false, 2, true],
      ['chat model-b', 'model-b', true, 0, true],
    ],
  );
  t.is(clients[1]!.attributes[ATTR_GEN_AI_PROVIDER_NAME], 'local');
  t.is(server.attributes['gw.served_model'], 'model-b');
  t.is(up.received.length, 2);
});

test('capture_content: input, system instructions and output as the conventions’ messages, every text cut to content_max_chars', async (t) => {
  const { rx, gw } = await setupOtel(
    t,
    (_r, res) => replyJson(res, 200, COMPLETION),
    (o) => openai(o),
    {
      otel: 'capture_content = true\ncontent_max_chars = 12',
    },
  );
  const res = await post(`${gw.baseURL}/chat/completions`, {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'You answer briefly.' },
      { role: 'user', content: 'What is the capital of France, please?' },
    ],
  });
  const { clients } = await traceOf(rx, res.headers.get('x-gw-trace-id')!, 1);
  const a = clients[0]!.attributes;
  t.deepEqual(JSON.parse(String(a[ATTR_GEN_AI_INPUT_MESSAGES])), [
    { role: 'system', parts: [{ type: 'text', content: 'You answer b…' }] },
    { role: 'user', parts: [{ type: 'text', content: 'What is the …' }] },
  ]);
  t.deepEqual(JSON.parse(String(a[ATTR_GEN_AI_OUTPUT_MESSAGES])), [
    { role: 'assistant', parts: [{ type: 'text', content: 'Hello there,…' }], finish_reason: 'stop' },
  ]);
  t.false(JSON.stringify(rx.spans).includes('capital of France'));
});

test('the GenAI metrics arrive over OTLP with the conventions’ names, units and buckets', async (t) => {
  const { rx, gw } = await setupOtel(
    t,
    (_r, res) => replyJson(res, 200, COMPLETION),
    (o) => openai(o),
  );
  const res = await post(`${gw.baseURL}/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  t.is(res.status, 200);
  for (let i = 0; i < 100 && !rx.points.some((p) => p.metric === METRIC_GEN_AI_CLIENT_TOKEN_USAGE); i++) await new Promise((r) => setTimeout(r, 30));
  const usage = rx.points.filter((p) => p.metric === METRIC_GEN_AI_CLIENT_TOKEN_USAGE);
  t.deepEqual(usage.map((p) => [p.attributes['gen_ai.token.type'], p.sum]).sort(), [
    ['input', 1200],
    ['output', 340],
  ]);
  t.is(usage[0]!.unit, '{token}');
  t.deepEqual(usage[0]!.bounds, [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]);
  const duration = rx.points.find((p) => p.metric === METRIC_GEN_AI_CLIENT_OPERATION_DURATION)!;
  t.is(duration.unit, 's');
  t.deepEqual(duration.bounds, [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]);
  t.is(duration.attributes[ATTR_GEN_AI_PROVIDER_NAME], 'openai');
});

test('each GenAI metric point carries its series’ attributes: a failed attempt its error.type, the answering one the response model', async (t) => {
  let n = 0;
  const { rx, gw } = await setupOtel(
    t,
    (_r, res) => (n++ === 0 ? replyJson(res, 500, { error: { message: 'boom', type: 'server_error' } }) : replyJson(res, 200, COMPLETION)),
    (o) => openai(o, 'max_retries = 1'),
  );
  const res = await post(`${gw.baseURL}/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  t.is(res.status, 200);
  const want = [METRIC_GEN_AI_CLIENT_OPERATION_DURATION, METRIC_GEN_AI_CLIENT_TOKEN_USAGE, METRIC_GEN_AI_SERVER_REQUEST_DURATION];
  for (let i = 0; i < 100 && !want.every((m) => rx.points.some((p) => p.metric === m)); i++) await new Promise((r) => setTimeout(r, 30));
  const attempt = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
    [ATTR_GEN_AI_PROVIDER_NAME]: GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
    [ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-4o',
  };
  const answered = { ...attempt, [ATTR_GEN_AI_RESPONSE_MODEL]: 'gpt-4o-2024-08-06' };
  const series = (metric: string) =>
    rx.points
      .filter((p) => p.metric === metric)
      .map((p) => [p.attributes, p.count])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  t.deepEqual(series(METRIC_GEN_AI_CLIENT_OPERATION_DURATION), [
    [{ ...attempt, [ATTR_ERROR_TYPE]: 'upstream_error' }, 1],
    [answered, 1],
  ]);
  t.deepEqual(series(METRIC_GEN_AI_CLIENT_TOKEN_USAGE), [
    [{ ...answered, [ATTR_GEN_AI_TOKEN_TYPE]: 'input' }, 1],
    [{ ...answered, [ATTR_GEN_AI_TOKEN_TYPE]: 'output' }, 1],
  ]);
  t.deepEqual(series(METRIC_GEN_AI_SERVER_REQUEST_DURATION), [[answered, 1]]);
});

test('spans are listed for the console at GET /v1/otel/spans (admin only), by trace', async (t) => {
  const { rx, gw } = await setupOtel(
    t,
    (_r, res) => replyJson(res, 200, COMPLETION),
    (o) => openai(o),
  );
  const res = await post(`${gw.baseURL}/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  const id = res.headers.get('x-gw-trace-id')!;
  await traceOf(rx, id, 1);
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const list = (await (await fetch(`${gw.baseURL}/otel/spans?trace_id=${id}`, { headers: admin })).json()) as Array<{
    trace_id: string;
    spans: Array<{ kind: string; parent_span_id: string | null }>;
  }>;
  t.is(list.length, 1);
  t.deepEqual(
    list[0]!.spans.map((s) => s.kind),
    ['server', 'client'],
  );
  t.is((await fetch(`${gw.baseURL}/otel/spans`, { headers: { authorization: `Bearer ${KEY}` } })).status, 403);
  const bad = await fetch(`${gw.baseURL}/otel/spans?limit=0`, { headers: admin });
  t.is(bad.status, 400);
  t.regex(((await bad.json()) as { error: { message: string } }).error.message, /limit/);
  t.is(CLIENT, 3);
  t.is(SERVER, 2);
});
