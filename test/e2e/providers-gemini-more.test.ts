/**
 * gemini kind beyond chat: embeddings (float and base64), model discovery, and
 * /v1/messages with the official Anthropic client (translated by the core around chat).
 */
import test from 'ava';
import { KEY } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse } from '../helpers/upstream.ts';
import { EMBED_MODEL, GEMINI_KEY, geminiRig, MODEL } from './providers-gemini.helpers.ts';

const TEXT_JSON = 'gemini/vercel-ai/google-text.json';
const TEXT_SSE = 'gemini/vercel-ai/google-text.sse';

// literal batchEmbedContents answer (shape per https://ai.google.dev/api/embeddings#batchembedcontentsresponse;
// no recording exists); values exact in float32 so base64 round-trips compare equal
const VECTORS = [
  [0.5, -0.25, 1],
  [0.125, 0, -1],
];
const EMBEDDINGS = { embeddings: VECTORS.map((values) => ({ values })) };

/** One literal vector per request the upstream received. */
function embeddingsFor(body: { requests: unknown[] }, extra: object = {}): object {
  return { embeddings: body.requests.map((_r, i) => ({ values: VECTORS[i % VECTORS.length] })), ...extra };
}

test('embeddings, float: batchEmbedContents request per input, vectors back, usage estimated', async (t) => {
  const { up, openai } = await geminiRig(t, (r, res) => replyJson(res, 200, embeddingsFor(r.json)));
  const res = await openai.embeddings.create({ model: EMBED_MODEL, input: ['hello world', 'bye'], encoding_format: 'float', dimensions: 3 });
  t.is(res.object, 'list');
  t.is(res.model, EMBED_MODEL);
  t.deepEqual(
    res.data.map((d) => d.embedding),
    [
      [0.5, -0.25, 1],
      [0.125, 0, -1],
    ],
  );
  t.deepEqual(
    res.data.map((d) => d.index),
    [0, 1],
  );
  t.is(res.usage.prompt_tokens, Math.ceil(11 / 4) + Math.ceil(3 / 4));

  const got = up.received[0]!;
  t.is(got.url, `/v1beta/models/${EMBED_MODEL}:batchEmbedContents`);
  t.is(got.headers['x-goog-api-key'], GEMINI_KEY);
  t.deepEqual(got.json, {
    requests: [
      { model: `models/${EMBED_MODEL}`, content: { parts: [{ text: 'hello world' }] }, outputDimensionality: 3 },
      { model: `models/${EMBED_MODEL}`, content: { parts: [{ text: 'bye' }] }, outputDimensionality: 3 },
    ],
  });
});

test("embeddings, base64 (the openai client's default): little-endian float32, decoded by the client", async (t) => {
  const { up, gw, openai } = await geminiRig(t, (r, res) =>
    replyJson(res, 200, embeddingsFor(r.json, { usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 } })),
  );
  const res = await openai.embeddings.create({ model: EMBED_MODEL, input: ['a', 'b'] });
  t.deepEqual(
    res.data.map((d) => d.embedding),
    [
      [0.5, -0.25, 1],
      [0.125, 0, -1],
    ],
  );
  t.is(res.usage.prompt_tokens, 4);

  const raw = await fetch(`${gw.baseURL}/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: EMBED_MODEL, input: 'a', encoding_format: 'base64' }),
  });
  const body = (await raw.json()) as any;
  const expected = Buffer.alloc(12);
  for (const [i, v] of [0.5, -0.25, 1].entries()) expected.writeFloatLE(v, i * 4);
  t.is(body.data[0].embedding, expected.toString('base64'));
  t.is(up.received.length, 2);
  t.false('encoding_format' in up.received[0]!.json, "encoding is gw's business, not Gemini's");
});

test('embeddings: token-id input is a 400 naming input, nothing sent upstream', async (t) => {
  const { up, gw } = await geminiRig(t, (_r, res) => replyJson(res, 200, EMBEDDINGS));
  const res = await fetch(`${gw.baseURL}/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: EMBED_MODEL, input: [1, 2, 3] }),
  });
  t.is(res.status, 400);
  t.is(((await res.json()) as any).error.param, 'input');
  t.is(up.received.length, 0);
});

test('embeddings: an answer without one vector per input is a 502', async (t) => {
  const { gw } = await geminiRig(t, (_r, res) => replyJson(res, 200, EMBEDDINGS));
  const res = await fetch(`${gw.baseURL}/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: EMBED_MODEL, input: 'only one' }),
  });
  t.is(res.status, 502);
  t.is(((await res.json()) as any).error.code, 'upstream_malformed');
});

test('model discovery: paginated models.list, ids without models/, models gw cannot serve left out', async (t) => {
  // literal pages (shape per https://ai.google.dev/api/models#response-body_1)
  const { up, openai } = await geminiRig(
    t,
    (r, res) => {
      const url = new URL(r.url, 'http://x');
      if (url.pathname !== '/v1beta/models') return replyJson(res, 404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
      if (url.searchParams.get('pageToken') === 'page-2')
        return replyJson(res, 200, { models: [{ name: 'models/gemini-embedding-001', supportedGenerationMethods: ['embedContent', 'countTextTokens'] }] });
      return replyJson(res, 200, {
        models: [
          { name: 'models/gemini-2.5-flash', supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent'] },
          { name: 'models/imagen-4.0-generate-001', supportedGenerationMethods: ['predict'] },
        ],
        nextPageToken: 'page-2',
      });
    },
    { providerToml: 'max_retries = 0' },
  );
  const ids = [];
  for await (const m of openai.models.list()) ids.push(m.id);
  t.deepEqual(ids.sort(), ['gemini-2.5-flash', 'gemini-embedding-001']);
  t.is(up.received.length, 2);
  t.true(up.received.every((r) => r.method === 'GET' && r.headers['x-goog-api-key'] === GEMINI_KEY));
  t.is(new URL(up.received[0]!.url, 'http://x').searchParams.get('pageToken'), null);
  t.is(new URL(up.received[1]!.url, 'http://x').searchParams.get('pageToken'), 'page-2');
});

test('model discovery failure: the provider serves nothing, and startup still succeeds', async (t) => {
  const { gw, openai } = await geminiRig(
    t,
    (_r, res) => replyJson(res, 403, { error: { code: 403, message: 'API key not valid.', status: 'PERMISSION_DENIED' } }),
    { providerToml: 'max_retries = 0' },
  );
  const page = await openai.models.list();
  t.deepEqual(page.data, []);
  t.true(gw.logs.some((l) => l.includes('model discovery failed')));
  t.false(gw.logs.some((l) => l.includes(GEMINI_KEY)));
});

test('/v1/messages (Anthropic client, non-stream) on a gemini model: translated both ways', async (t) => {
  const { up, anthropic } = await geminiRig(t, (_r, res) => replyJson(res, 200, fixture(TEXT_JSON)));
  const msg = await anthropic.messages.create({
    model: MODEL,
    max_tokens: 200,
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'How many r in strawberry?' }],
  });
  t.is(msg.type, 'message');
  t.is(msg.role, 'assistant');
  t.is(msg.model, MODEL);
  t.is(msg.stop_reason, 'end_turn');
  t.is(msg.content[0]!.type, 'text');
  t.is((msg.content[0] as { text: string }).text, fixtureJson(TEXT_JSON).candidates[0].content.parts[0].text);
  t.is(msg.usage.input_tokens, 9);
  t.is(msg.usage.output_tokens, 28 + 244);

  const got = up.received[0]!;
  t.is(got.url, `/v1beta/models/${MODEL}:generateContent`);
  t.is(got.headers['x-goog-api-key'], GEMINI_KEY);
  t.is(got.headers['x-api-key'], undefined, 'the gateway key does not travel upstream');
  t.deepEqual(got.json.systemInstruction, { parts: [{ text: 'Be brief.' }] });
  t.deepEqual(got.json.contents, [{ role: 'user', parts: [{ text: 'How many r in strawberry?' }] }]);
  t.is(got.json.generationConfig.maxOutputTokens, 200);
});

test('/v1/messages (Anthropic client, stream) on a gemini model: Messages events, text reassembled', async (t) => {
  const { up, anthropic } = await geminiRig(t, (_r, res) => replySse(res, fixture(TEXT_SSE), { delayMs: 2 }));
  const stream = anthropic.messages.stream({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'hi' }] });
  const types: string[] = [];
  let text = '';
  for await (const ev of stream) {
    types.push(ev.type);
    if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
  }
  const final = await stream.finalMessage();
  t.is(text, 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
  t.is(types[0], 'message_start');
  t.is(types.at(-1), 'message_stop');
  t.is(final.stop_reason, 'end_turn');
  t.is(final.usage.output_tokens, 23 + 185);
  t.is(up.received[0]!.url, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`);
  t.is(up.received[0]!.headers['x-goog-api-key'], GEMINI_KEY);
});
