/**
 * The otel extension on streams and on every upstream path: a stream on each client format
 * (chat completions, Messages, Responses, Gemini) gives a SERVER span and one CLIENT span
 * with its first-token and end events, response id, finish reasons and usage; a failure
 * mid-stream ends the span with its code; and every built-in upstream path — translated
 * chat, native Messages (and count_tokens), native Responses, native Gemini, embeddings —
 * sends the CLIENT span's traceparent upstream.
 */
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_SERVER_REQUEST_DURATION,
  METRIC_GEN_AI_SERVER_TIME_PER_OUTPUT_TOKEN,
  METRIC_GEN_AI_SERVER_TIME_TO_FIRST_TOKEN,
} from '@opentelemetry/semantic-conventions/incubating';
import test from 'ava';
import { fixture, replyJson, replySse } from '../helpers/upstream.ts';
import { localProvider, post, setupOtel, traceOf } from './otel-helpers.ts';

const CHAT_SSE = fixture('openai/vercel-ai/openai-text.sse');
const MODEL = 'gpt-4.1-nano';

/** Each client format's streaming request for MODEL. */
const STREAMS: Array<[string, string, unknown]> = [
  ['chat', '/v1/chat/completions', { model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] }],
  ['messages', '/v1/messages', { model: MODEL, stream: true, max_tokens: 500, messages: [{ role: 'user', content: 'Hi' }] }],
  ['responses', '/v1/responses', { model: MODEL, stream: true, input: 'Hi', store: false }],
  ['gemini', `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }],
];

for (const [name, path, body] of STREAMS) {
  test(`a ${name} stream: one CLIENT span under the SERVER span, first-token and end events, response facts and usage`, async (t) => {
    const { up, rx, gw } = await setupOtel(
      t,
      (_r, res) => replySse(res, CHAT_SSE),
      (o) => localProvider(o, [MODEL]),
      { otel: 'capture_content = true' },
    );
    const res = await post(`${gw.url}${path}`, body);
    t.is(res.status, 200);
    const text = await res.text();
    t.true(text.length > 0);
    const { server, clients } = await traceOf(rx, res.headers.get('x-gw-trace-id')!, 1);
    t.is(clients.length, 1);
    const c = clients[0]!;
    t.is(c.parentSpanId, server.spanId);
    t.is(String(up.received[0]!.headers.traceparent).split('-')[2], c.spanId);
    const a = c.attributes;
    t.is(a[ATTR_GEN_AI_OPERATION_NAME], name === 'gemini' ? GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT : 'chat');
    t.is(a[ATTR_GEN_AI_REQUEST_STREAM], true);
    t.is(a[ATTR_GEN_AI_USAGE_INPUT_TOKENS], 16);
    t.is(a[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS], 300);
    t.is(typeof a[ATTR_GEN_AI_RESPONSE_ID], 'string');
    t.true((a[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] as string[]).length >= 1, JSON.stringify(a[ATTR_GEN_AI_RESPONSE_FINISH_REASONS]));
    const ttfc = a[ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] as number;
    t.true(ttfc > 0 && ttfc * 1000 <= c.endMs - c.startMs + 1);
    t.deepEqual(
      c.events.map((e) => e.name),
      ['gw.stream.first_token', 'gw.stream.end'],
    );
    t.true(c.events[0]!.timeMs <= c.events[1]!.timeMs);
    // the stream's text, collected as it passed (capture_content)
    const out = JSON.parse(String(a[ATTR_GEN_AI_OUTPUT_MESSAGES])) as Array<{ parts: Array<{ content: string }> }>;
    t.true(out[0]!.parts[0]!.content.length > 100);
    t.deepEqual(
      server.events.map((e) => e.name),
      ['gw.stream.first_byte'],
    );
  });
}

test('a stream’s GenAI metrics: attempt and request durations and time to first token in seconds, each value in its bucket', async (t) => {
  const { rx, gw } = await setupOtel(
    t,
    (_r, res) => replySse(res, CHAT_SSE, { delayMs: 2 }),
    (o) => localProvider(o, [MODEL]),
  );
  const t0 = performance.now();
  const res = await post(`${gw.baseURL}/chat/completions`, { model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
  await res.text();
  const wallS = (performance.now() - t0) / 1000;
  const names = [
    METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
    METRIC_GEN_AI_SERVER_REQUEST_DURATION,
    METRIC_GEN_AI_SERVER_TIME_TO_FIRST_TOKEN,
    METRIC_GEN_AI_SERVER_TIME_PER_OUTPUT_TOKEN,
  ];
  for (let i = 0; i < 100 && !names.every((n) => rx.points.some((p) => p.metric === n)); i++) await new Promise((r) => setTimeout(r, 30));
  const point = (n: string) => {
    const p = rx.points.find((x) => x.metric === n);
    if (!p) throw new Error(`no ${n} point`);
    return p;
  };
  for (const n of names) {
    const p = point(n);
    t.is(p.count, 1, n);
    // seconds of this one request, never an epoch mixed with a monotonic clock
    t.true(p.sum > 0 && p.sum <= wallS, `${n}: ${p.sum} s of a ${wallS} s request`);
    const bucket = p.bounds.findIndex((b) => p.sum <= b);
    t.is(p.counts[bucket === -1 ? p.bounds.length : bucket], 1, n);
    t.is(
      p.counts.reduce((a, b) => a + b, 0),
      1,
      n,
    );
  }
  t.true(point(METRIC_GEN_AI_SERVER_TIME_TO_FIRST_TOKEN).sum <= point(METRIC_GEN_AI_SERVER_REQUEST_DURATION).sum);
});

test('a stream cut mid-way: its CLIENT span ends in error with the code, after a first-token event', async (t) => {
  const { rx, gw } = await setupOtel(
    t,
    (_r, res) => replySse(res, CHAT_SSE, { cutAfter: 10, delayMs: 5 }),
    (o) => localProvider(o, [MODEL], 'max_retries = 0'),
  );
  const res = await post(`${gw.baseURL}/chat/completions`, { model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
  t.is(res.status, 200);
  t.regex(await res.text(), /error/);
  const { clients } = await traceOf(rx, res.headers.get('x-gw-trace-id')!, 1);
  const c = clients[0]!;
  t.is(c.status, 2);
  t.is(c.attributes[ATTR_ERROR_TYPE], 'upstream_connection_lost');
  t.deepEqual(
    c.events.map((e) => [e.name, e.attributes[ATTR_ERROR_TYPE]]),
    [
      ['gw.stream.first_token', undefined],
      ['gw.stream.error', 'upstream_connection_lost'],
    ],
  );
});

test('every built-in upstream path sends the CLIENT span’s traceparent: native Messages and count_tokens, native Gemini, native Responses, embeddings', async (t) => {
  const { up, rx, gw } = await setupOtel(
    t,
    (r, res) => {
      if (r.url.startsWith('/v1/messages/count_tokens')) return replyJson(res, 200, { input_tokens: 7 });
      if (r.url.startsWith('/v1/messages')) return replySse(res, fixture('anthropic/vercel-ai/anthropic-text.sse'));
      if (r.url.includes(':streamGenerateContent')) return replySse(res, fixture('gemini/vercel-ai/google-text.sse'));
      if (r.url.startsWith('/v1/responses')) return replySse(res, fixture('responses/openai-node/stream.reasoning.sse'));
      if (r.url.startsWith('/v1/embeddings'))
        return replyJson(res, 200, {
          object: 'list',
          data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
          model: 'emb',
          usage: { prompt_tokens: 2, total_tokens: 2 },
        });
      return replyJson(res, 404, { error: { message: `no ${r.url}` } });
    },
    (o) =>
      [
        `[providers.anthropic]\napi_key = "sk-ant-upstream-0123456789"\nbase_url = "${o}"\nmax_retries = 0\nmodels = ["claude-x"]`,
        `[providers.gemini]\napi_key = "g-upstream-0123456789"\nbase_url = "${o}"\nmax_retries = 0\nmodels = ["gemini-x"]`,
        `[providers.openai]\napi_key = "sk-upstream-0123456789abcdef"\nbase_url = "${o}/v1"\nmax_retries = 0\nmodels = ["o3", "emb"]`,
      ].join('\n'),
  );
  const calls: Array<[string, string, unknown]> = [
    ['messages', '/v1/messages', { model: 'claude-x', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Hi' }] }],
    ['count_tokens', '/v1/messages/count_tokens', { model: 'claude-x', messages: [{ role: 'user', content: 'Hi' }] }],
    ['gemini', '/v1beta/models/gemini-x:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }],
    ['responses', '/v1/responses', { model: 'o3', stream: true, input: 'Hi', store: false }],
    ['embeddings', '/v1/embeddings', { model: 'emb', input: 'Hi' }],
  ];
  for (const [name, path, body] of calls) {
    const res = await post(`${gw.url}${path}`, body);
    t.is(res.status, 200, name);
    await res.text();
    const id = res.headers.get('x-gw-trace-id')!;
    const { clients } = await traceOf(rx, id, 1);
    const got = up.received.at(-1)!;
    t.is(String(got.headers.traceparent), `00-${id}-${clients[0]!.spanId}-01`, name);
    if (name === 'messages') t.is(clients[0]!.attributes[ATTR_GEN_AI_PROVIDER_NAME], GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC);
    if (name === 'gemini') t.is(clients[0]!.attributes[ATTR_GEN_AI_PROVIDER_NAME], GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI);
    if (name === 'embeddings') t.is(clients[0]!.attributes[ATTR_GEN_AI_OPERATION_NAME], GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS);
  }
});
