/**
 * The Gemini API in, the gemini kind out: a passthrough. Bodies and stream events reach the
 * client unchanged (thoughtSignature, usageMetadata and all), the upstream gets the client's
 * bytes with the provider's key; usage is read from usageMetadata. Driven with
 * @google/genai and raw fetches against a mock Gemini origin replaying recorded payloads.
 */
import { ApiError, GoogleGenAI } from '@google/genai';
import test, { type ExecutionContext } from 'ava';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, type Handler, type MockUpstream } from '../helpers/upstream.ts';

const TEXT_JSON = fixture('gemini/vercel-ai/google-text.json');
const TEXT_SSE = fixture('gemini/vercel-ai/google-text.sse');
const CALL_SSE = fixture('gemini/vercel-ai/google-tool-call.sse');
const MODEL = 'gemini-2.5-flash';

/** The mock Gemini origin: the recorded text answer (JSON or SSE) unless told otherwise. */
const geminiHandler: Handler = (r, res) => {
  if (r.url.includes(':streamGenerateContent')) return replySse(res, TEXT_SSE);
  if (r.url.includes(':countTokens')) return replyJson(res, 200, { totalTokens: 31, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 31 }] });
  if (r.url.includes(':batchEmbedContents')) return replyJson(res, 200, { embeddings: [{ values: [0.25, -0.5] }, { values: [1, 2] }] });
  if (r.url.includes(':embedContent')) return replyJson(res, 200, { embedding: { values: [0.125, 0.5] } });
  replyJson(res, 200, TEXT_JSON);
};

async function setup(t: ExecutionContext, opts: { handler?: Handler; extra?: string } = {}): Promise<{ gw: TestGateway; up: MockUpstream; ai: GoogleGenAI }> {
  const up = await startUpstream(opts.handler ?? geminiHandler);
  const gw = await startGateway(
    baseConfig(
      `[providers.gemini]\napi_key = "g-upstream-key"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["${MODEL}", "gemini-embedding-001"]\n${opts.extra ?? ''}`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { gw, up, ai: new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: gw.url } }) };
}

function gpost(gw: TestGateway, path: string, body: string): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

/** Recorded SSE events' data, in order. */
const eventsOf = (sse: string) =>
  sse
    .split('\r\n\r\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));

const BODY =
  '{"contents": [{"role": "user", "parts": [{"text": "How many r in strawberry?"}]}],  "generationConfig": {"thinkingConfig": {"includeThoughts": false}}, "safetySettings": []}';

test("generateContent: the client's bytes upstream, the upstream's bytes back; ?key= and the gateway key replaced by the provider's", async (t) => {
  const { gw, up } = await setup(t);
  const r = await gpost(gw, `/v1beta/models/${MODEL}:generateContent?key=${KEY}&$alt=json`, BODY);
  t.is(r.status, 200);
  t.is(r.headers.get('x-gw-provider'), 'gemini');
  t.is(await r.text(), TEXT_JSON);
  const sent = up.received[0]!;
  t.is(sent.url, `/v1beta/models/${MODEL}:generateContent?%24alt=json`);
  t.is(sent.body, BODY);
  t.is(sent.headers['x-goog-api-key'], 'g-upstream-key');
  t.false(JSON.stringify(sent).includes(KEY));
});

test('streamGenerateContent?alt=sse: events byte for byte (thoughtSignature, usageMetadata); @google/genai reads the call and its signature', async (t) => {
  const { gw, up, ai } = await setup(t, { handler: (r, res) => replySse(res, r.body.includes('weather') ? CALL_SSE : TEXT_SSE) });
  const r = await gpost(gw, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse&key=${KEY}`, BODY);
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type')!, /^text\/event-stream/);
  t.is(await r.text(), TEXT_SSE);
  t.is(up.received[0]!.url, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`);
  t.is(up.received[0]!.body, BODY);

  const parts = [];
  for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: 'weather in SF?' }))
    parts.push(...(c.candidates?.[0]?.content?.parts ?? []));
  const recorded = JSON.parse(eventsOf(CALL_SSE)[0]!).candidates[0].content.parts[0];
  t.deepEqual(parts[0], recorded);
  t.truthy(recorded.thoughtSignature);
});

test('streamGenerateContent without alt: the same events as one JSON array (the upstream is asked for SSE)', async (t) => {
  const { gw, up } = await setup(t);
  const r = await gpost(gw, `/v1/models/${MODEL}:streamGenerateContent?key=${KEY}`, BODY);
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type')!, /^application\/json/);
  const text = await r.text();
  t.is(text, `[${eventsOf(TEXT_SSE).join(',\r\n')}]`);
  t.deepEqual(
    JSON.parse(text),
    eventsOf(TEXT_SSE).map((d) => JSON.parse(d)),
  );
  t.is(up.received[0]!.url, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`);
});

test('usage is read from usageMetadata (thoughts count as completion), non-stream and stream', async (t) => {
  const { gw, ai } = await setup(t, { extra: '[extensions.usage]\n' });
  await ai.models.generateContent({ model: MODEL, contents: 'Hi' });
  for await (const _ of await ai.models.generateContentStream({ model: MODEL, contents: 'Hi' })) void _;
  const usage = (await (await fetch(`${gw.url}/v1/usage`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as any[];
  const json = JSON.parse(TEXT_JSON).usageMetadata;
  const last = JSON.parse(eventsOf(TEXT_SSE).at(-1)!).usageMetadata;
  t.like(
    usage.find((u) => u.model === MODEL),
    {
      key: 'default',
      requests: 2,
      prompt_tokens: json.promptTokenCount + last.promptTokenCount,
      completion_tokens: json.candidatesTokenCount + json.thoughtsTokenCount + last.candidatesTokenCount + last.thoughtsTokenCount,
    },
  );
});

test('countTokens is native (forwarded, answered unchanged, not estimated); embedContent and batchEmbedContents too', async (t) => {
  const { gw, up, ai } = await setup(t);
  const ct = await ai.models.countTokens({ model: MODEL, contents: 'Hello' });
  t.is(ct.totalTokens, 31);
  t.is(ct.sdkHttpResponse?.headers?.['x-gw-estimated'], undefined);
  t.regex(up.received[0]!.url, new RegExp(`^/v1beta/models/${MODEL}:countTokens`));
  const one = await gpost(
    gw,
    `/v1beta/models/gemini-embedding-001:embedContent?key=${KEY}`,
    '{"content":{"parts":[{"text":"hi"}]},"taskType":"RETRIEVAL_QUERY"}',
  );
  t.deepEqual(await one.json(), { embedding: { values: [0.125, 0.5] } });
  t.is(up.received[1]!.body, '{"content":{"parts":[{"text":"hi"}]},"taskType":"RETRIEVAL_QUERY"}');
  const e = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: ['a', 'b'] });
  t.deepEqual(
    e.embeddings!.map((x) => x.values),
    [
      [0.25, -0.5],
      [1, 2],
    ],
  );
  t.regex(up.received[2]!.url, /^\/v1beta\/models\/gemini-embedding-001:batchEmbedContents/);
});

test("an alias: the canonical model in the upstream URL and nested model names, the body re-serialized without gw's model field", async (t) => {
  const { gw, up } = await setup(t, { extra: '[aliases]\nflash = "gemini-2.5-flash"\nembed = "gemini-embedding-001"\n' });
  const r = await gpost(gw, `/v1beta/models/flash:generateContent?key=${KEY}`, BODY);
  t.is(r.status, 200);
  t.is(up.received[0]!.url, `/v1beta/models/${MODEL}:generateContent`);
  t.deepEqual(up.received[0]!.json, JSON.parse(BODY));
  const b = await gpost(
    gw,
    `/v1beta/models/embed:batchEmbedContents?key=${KEY}`,
    JSON.stringify({
      requests: [
        { model: 'models/embed', content: { parts: [{ text: 'a' }] } },
        { model: 'models/embed', content: { parts: [{ text: 'b' }] } },
      ],
    }),
  );
  t.is(b.status, 200);
  t.deepEqual(
    up.received[1]!.json.requests.map((x: any) => x.model),
    ['models/gemini-embedding-001', 'models/gemini-embedding-001'],
  );
});

test("upstream errors in Google's shape: a 429 keeps its status and retry delay; an error as the first stream event is a real status", async (t) => {
  const quota = fixture('gemini/vercel-ai/error.429.resource-exhausted.json');
  const { gw, ai } = await setup(t, {
    handler: (r, res) =>
      r.url.includes('stream')
        ? replySse(res, `data: ${JSON.stringify({ error: { code: 400, message: 'bad thing', status: 'INVALID_ARGUMENT' } })}\r\n\r\n`)
        : replyJson(res, 429, quota),
  });
  const err = await t.throwsAsync(ai.models.generateContent({ model: MODEL, contents: 'Hi' }), { instanceOf: ApiError });
  t.is(err.status, 429);
  const body = JSON.parse(err.message).error;
  t.like(body, { code: 429, status: 'RESOURCE_EXHAUSTED' });
  t.regex(body.message, /You exceeded your current quota/);
  t.deepEqual(body.details.at(-1), { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '35s' });
  const raw = await gpost(gw, `/v1beta/models/${MODEL}:generateContent?key=${KEY}`, BODY);
  t.is(raw.headers.get('retry-after'), '35');

  const first = await gpost(gw, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse&key=${KEY}`, BODY);
  t.is(first.status, 400);
  t.like(((await first.json()) as any).error, { code: 400, status: 'INVALID_ARGUMENT', message: 'provider gemini: bad thing' });
});

test("failures after the first byte, in both framings: an upstream error event forwarded unchanged; a stream cut before finishReason → Google's error", async (t) => {
  const head = eventsOf(TEXT_SSE).slice(0, 2);
  const errEvent = JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } });
  const { gw } = await setup(t, {
    handler: (r, res) => replySse(res, [...head, ...(r.body.includes('cut') ? [] : [errEvent])].map((d) => `data: ${d}\r\n\r\n`).join('')),
  });
  const body = (text: string) => JSON.stringify({ contents: [{ parts: [{ text }] }] });

  const sse = await (await gpost(gw, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse&key=${KEY}`, body('x'))).text();
  t.deepEqual(eventsOf(sse), [...head, errEvent]);
  const arr = JSON.parse(await (await gpost(gw, `/v1beta/models/${MODEL}:streamGenerateContent?key=${KEY}`, body('x'))).text());
  t.deepEqual(
    arr,
    [...head, errEvent].map((d) => JSON.parse(d)),
  );

  const cutSse = eventsOf(await (await gpost(gw, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse&key=${KEY}`, body('cut'))).text());
  t.deepEqual(cutSse.slice(0, 2), head);
  t.like(JSON.parse(cutSse[2]!).error, { code: 502, status: 'UNAVAILABLE' });
  t.regex(JSON.parse(cutSse[2]!).error.message, /ended the stream before finishReason/);
  const cutArr = JSON.parse(await (await gpost(gw, `/v1beta/models/${MODEL}:streamGenerateContent?key=${KEY}`, body('cut'))).text());
  t.is(cutArr.length, 3);
  t.like(cutArr[2].error, { code: 502, status: 'UNAVAILABLE' });
});

test('retries: an upstream 503 is retried on the same provider before anything is sent (x-gw-attempts)', async (t) => {
  let n = 0;
  const up = await startUpstream((r, res) =>
    n++ === 0 ? replyJson(res, 503, { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }) : geminiHandler(r, res, undefined as never),
  );
  const gw = await startGateway(
    baseConfig(`[providers.gemini]\napi_key = "g-upstream-key"\nbase_url = "${up.origin}"\nmax_retries = 1\nmodels = ["${MODEL}"]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const r = await gpost(gw, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse&key=${KEY}`, BODY);
  t.is(r.status, 200);
  t.is(r.headers.get('x-gw-attempts'), '2');
  t.is(await r.text(), TEXT_SSE);
  t.is(up.received.length, 2);
});

test('the anthropic-messages and openai-chat formats still reach the gemini kind translated (native.gemini is for Gemini clients only)', async (t) => {
  const { gw, up } = await setup(t);
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  t.is(r.status, 200);
  t.is(((await r.json()) as any).choices[0].message.content, fixtureJson('gemini/vercel-ai/google-text.json').candidates[0].content.parts[0].text);
  t.deepEqual(up.received[0]!.json.contents, [{ role: 'user', parts: [{ text: 'Hi' }] }]);
});
