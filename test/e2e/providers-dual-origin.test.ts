/**
 * Kinds whose vendor serves OpenAI chat at one origin and Anthropic Messages at another: the
 * built-in dashscope and zhipu, and the third-party `dualvendor` (test/fixtures/
 * gw-plugin-dualvendor, written only against gw/plugin and the protocol kits, loaded from
 * node_modules). Every kind passes the same cases through the official openai and
 * @anthropic-ai/sdk clients against recorded vendor payloads: chat, stream, tools, model
 * discovery, and the native Messages passthrough (answers, streams, count_tokens, errors).
 */
import Anthropic from '@anthropic-ai/sdk';
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, type Handler } from '../helpers/upstream.ts';
import { assemble, frames, WEATHER } from './providers-assemble.ts';

const MODEL = 'vendor-max';
const UPSTREAM_KEY = 'sk-vendor-upstream';

interface Kind {
  title: string;
  /** The provider section, both origins under the mock upstream's `origin`. */
  section(origin: string): string;
  /** Path prefix of the chat origin and of the Messages origin. */
  chat: string;
  messages: string;
  /** Auth headers the Messages origin gets. */
  messagesAuth: Record<string, string | undefined>;
}

const KINDS: Kind[] = [
  {
    title: 'dashscope',
    section: (o) => `[providers.dashscope]\nbase_url = "${o}/compatible-mode/v1"\nmessages_base_url = "${o}/apps/anthropic"\n`,
    chat: '/compatible-mode/v1',
    messages: '/apps/anthropic',
    messagesAuth: { authorization: `Bearer ${UPSTREAM_KEY}`, 'x-api-key': undefined },
  },
  {
    title: 'zhipu',
    section: (o) => `[providers.zhipu]\nbase_url = "${o}/api/paas/v4"\nmessages_base_url = "${o}/api/anthropic"\n`,
    chat: '/api/paas/v4',
    messages: '/api/anthropic',
    messagesAuth: { authorization: `Bearer ${UPSTREAM_KEY}`, 'x-api-key': undefined },
  },
  {
    title: 'dualvendor (gw-plugin-dualvendor)',
    section: (o) => `[providers.dv]\nkind = "dualvendor"\nbase_url = "${o}/v1"\nmessages_base_url = "${o}/claude"\n`,
    chat: '/v1',
    messages: '/claude',
    messagesAuth: { authorization: undefined, 'x-api-key': UPSTREAM_KEY },
  },
];

async function setup(t: ExecutionContext, kind: Kind, handler: Handler, models = `models = ["${MODEL}"]`) {
  const up = await startUpstream(handler);
  const gw = await startGateway(baseConfig(`${kind.section(up.origin)}api_key = "${UPSTREAM_KEY}"\nmax_retries = 0\n${models}\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return {
    up,
    gw,
    openai: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 }),
  };
}

for (const kind of KINDS) {
  test(`${kind.title}: chat non-stream: body bytes forwarded (vendor fields included) to the chat origin, answer bytes returned`, async (t) => {
    const answer = fixture('dashscope/vercel-ai/alibaba-text.json');
    const { up, gw, openai } = await setup(t, kind, (_r, res) => replyJson(res, 200, answer));
    const sent = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Invent a holiday' }], enable_thinking: false });
    const res = await fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: sent,
    });
    t.is(await res.text(), answer);
    t.is(up.received[0]!.url, `${kind.chat}/chat/completions`);
    t.is(up.received[0]!.headers.authorization, `Bearer ${UPSTREAM_KEY}`);
    t.is(up.received[0]!.body, sent);
    const viaClient = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Invent a holiday' }] });
    const expected = fixtureJson('dashscope/vercel-ai/alibaba-text.json');
    t.is(viaClient.choices[0]!.message.content, expected.choices[0].message.content);
    t.like(viaClient.usage, { prompt_tokens: 18, completion_tokens: 1064 });
  });

  test(`${kind.title}: chat stream: content reassembled exactly, usage only when asked`, async (t) => {
    const sse = fixture('dashscope/vercel-ai/alibaba-text.sse');
    const expected = frames(sse)
      .filter((f) => f.data !== '[DONE]')
      .map((f) => JSON.parse(f.data).choices[0]?.delta?.content ?? '')
      .join('');
    const { up, openai } = await setup(t, kind, (_r, res) => replySse(res, sse));
    const messages = [{ role: 'user' as const, content: 'x' }];
    const withUsage = await assemble(await openai.chat.completions.create({ model: MODEL, messages, stream: true, stream_options: { include_usage: true } }));
    t.is(withUsage.content, expected);
    t.is(withUsage.finish, 'stop');
    t.is(withUsage.usageChunks.length, 1);
    const without = await assemble(await openai.chat.completions.create({ model: MODEL, messages, stream: true }));
    t.is(without.content, expected);
    t.is(without.usageChunks.length, 0);
    t.deepEqual(up.received[1]!.json.stream_options, { include_usage: true });
  });

  test(`${kind.title}: tools: a streamed call reassembles, a non-stream call parses, the result round trip is forwarded as sent`, async (t) => {
    const { up, openai } = await setup(t, kind, (r, res) =>
      r.json.stream === true
        ? replySse(res, fixture('dashscope/vercel-ai/alibaba-tool-call.sse'))
        : replyJson(res, 200, fixture('dashscope/vercel-ai/alibaba-tool-call.json')),
    );
    const ask = [{ role: 'user' as const, content: 'Weather in SF?' }];
    const streamed = await assemble(
      await openai.chat.completions.create({ model: MODEL, messages: ask, tools: [WEATHER], stream: true, stream_options: { include_usage: true } }),
    );
    t.deepEqual(streamed.toolCalls, [{ id: 'call_eee11723464a4b9eb8cee71d', name: 'weather', arguments: '{"location": "San Francisco"}' }]);
    t.is(streamed.finish, 'tool_calls');
    t.deepEqual(up.received[0]!.json.tools, [WEATHER]);
    const res = await openai.chat.completions.create({ model: MODEL, messages: ask, tools: [WEATHER] });
    const call = res.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    t.is(res.choices[0]!.finish_reason, 'tool_calls');
    t.deepEqual(JSON.parse(call.function.arguments), { location: 'San Francisco' });
    const history: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      ...ask,
      { role: 'assistant', content: '', tool_calls: [{ id: call.id, type: 'function', function: call.function }] },
      { role: 'tool', tool_call_id: call.id, content: '18 C' },
    ];
    await openai.chat.completions.create({ model: MODEL, messages: history, tools: [WEATHER] });
    t.deepEqual(up.received[2]!.json.messages, history);
  });

  test(`${kind.title}: models discovered from the chat origin's /models`, async (t) => {
    const { up, openai } = await setup(
      t,
      kind,
      (_r, res) =>
        replyJson(res, 200, {
          object: 'list',
          data: [
            { id: MODEL, object: 'model' },
            { id: 'vendor-plus', object: 'model' },
          ],
        }),
      '',
    );
    const list = await openai.models.list();
    t.deepEqual(list.data.map((m) => m.id).sort(), ['vendor-max', 'vendor-plus']);
    t.is(up.received[0]!.url, `${kind.chat}/models`);
    t.is(up.received[0]!.headers.authorization, `Bearer ${UPSTREAM_KEY}`);
  });

  test(`${kind.title}: native Messages: the SDK's call goes to the Messages origin with the kind's auth, the answer comes back unchanged`, async (t) => {
    const answer = fixture('anthropic/vercel-ai/anthropic-text.json');
    const { up, anthropic } = await setup(t, kind, (_r, res) => replyJson(res, 200, answer));
    const msg = await anthropic.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    t.deepEqual({ ...msg }, JSON.parse(answer));
    const r = up.received[0]!;
    t.is(r.url, `${kind.messages}/v1/messages`);
    t.like(r.headers, kind.messagesAuth);
    t.not(r.headers['x-api-key'], KEY, 'the gateway key never goes upstream');
    t.truthy(r.headers['anthropic-version']);
    t.deepEqual(r.json, { model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
  });

  test(`${kind.title}: native Messages stream: the SDK reassembles the tool_use block from the forwarded events`, async (t) => {
    const sse = fixture('anthropic/anthropic-sdk-typescript/tool_use.sse');
    const { up, gw, anthropic } = await setup(t, kind, (_r, res) => replySse(res, sse));
    const stream = anthropic.messages.stream({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }],
    });
    const msg = await stream.finalMessage();
    t.is(msg.stop_reason, 'tool_use');
    t.like(
      msg.content.find((b) => b.type === 'tool_use'),
      { id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', input: { location: 'Paris' } },
    );
    t.is(up.received[0]!.headers.accept, 'text/event-stream');
    const raw = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    const events = (await raw.text())
      .split('\n\n')
      .filter((f) => f && !f.startsWith(':'))
      .join('\n\n');
    t.is(events, sse.trimEnd(), 'events forwarded byte for byte');
  });

  test(`${kind.title}: native count_tokens goes to the Messages origin`, async (t) => {
    const { up, anthropic } = await setup(t, kind, (_r, res) => replyJson(res, 200, { input_tokens: 12 }));
    const counted = await anthropic.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] });
    t.is(counted.input_tokens, 12);
    t.is(up.received[0]!.url, `${kind.messages}/v1/messages/count_tokens`);
    t.like(up.received[0]!.headers, kind.messagesAuth);
  });

  test(`${kind.title}: native Messages errors: a 400 kept with its type and message, a 529 → 502, both in the Messages shape`, async (t) => {
    let status = 400;
    const { anthropic } = await setup(t, kind, (_r, res) =>
      status === 400
        ? replyJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: must be positive' } })
        : replyJson(res, 529, fixture('anthropic/vercel-ai/error.529.overloaded.json')),
    );
    const call = () => anthropic.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'x' }] });
    const bad = await t.throwsAsync(call(), { instanceOf: Anthropic.BadRequestError });
    const body = bad.error as { type: string; error: { type: string; message: string } };
    t.is(body.type, 'error');
    t.is(body.error.type, 'invalid_request_error');
    t.regex(body.error.message, /max_tokens: must be positive/);
    status = 529;
    const down = await t.throwsAsync(call(), { instanceOf: Anthropic.APIError });
    t.is(down.status, 502);
    t.regex((down.error as { error: { message: string } }).error.message, /HTTP 529: Overloaded/);
  });
}
