/**
 * gemini kind, chat: gw with the official openai client in front of a mock Gemini API
 * replaying test/fixtures/gemini/ recordings. Asserts what the upstream received (path,
 * x-goog-api-key, translated body) as much as what came back.
 */
import test from 'ava';
import { KEY } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, replySse } from '../helpers/upstream.ts';
import { GEMINI_KEY, geminiRig, geminiSse, MODEL, sseData } from './providers-gemini.helpers.ts';

const TEXT_JSON = 'gemini/vercel-ai/google-text.json';
const TEXT_SSE = 'gemini/vercel-ai/google-text.sse';
const TOOL_JSON = 'gemini/vercel-ai/google-tool-call.json';
const TOOL_SSE = 'gemini/vercel-ai/google-tool-call.sse';
const ERR_429 = 'gemini/vercel-ai/error.429.resource-exhausted.json';

const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'weather',
    description: 'Current weather at a place',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'], additionalProperties: false },
  },
};

/** Text the recorded stream carries, reassembled from the fixture itself. */
function recordedStreamText(path: string): string {
  return fixture(path)
    .split('\r\n\r\n')
    .filter((e) => e.startsWith('data: '))
    .flatMap((e) => JSON.parse(e.slice(6)).candidates[0].content.parts as Array<{ text?: string; thought?: boolean }>)
    .filter((p) => typeof p.text === 'string' && p.thought !== true)
    .map((p) => p.text)
    .join('');
}

/** Plain-fetch POST to gw's chat route. */
function postChat(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

test('non-stream: translated request, recorded answer, OpenAI usage semantics, warnings at debug with the request id', async (t) => {
  const { up, gw, openai } = await geminiRig(t, (_r, res) => replyJson(res, 200, fixture(TEXT_JSON)), { level: 'debug' });
  const rec = fixtureJson(TEXT_JSON);
  const res = await openai.chat.completions.create(
    {
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'How many r in strawberry?' },
      ],
      temperature: 0.5,
      max_tokens: 100,
      user: 'u-1',
    },
    { headers: { 'x-request-id': 'gem-req-1' } },
  );
  t.is(res.object, 'chat.completion');
  t.regex(res.id, /^chatcmpl-[0-9a-f]{24}$/);
  t.is(res.model, MODEL);
  t.true(Math.abs(res.created - Date.now() / 1000) < 60);
  t.is(res.choices[0]!.message.content, rec.candidates[0].content.parts[0].text);
  t.is(res.choices[0]!.finish_reason, 'stop');
  t.is(res.usage!.prompt_tokens, 9);
  t.is(res.usage!.completion_tokens, 28 + 244);
  t.is(res.usage!.total_tokens, 281);
  t.is(res.usage!.completion_tokens_details!.reasoning_tokens, 244);

  t.is(up.received.length, 1);
  const got = up.received[0]!;
  t.is(got.method, 'POST');
  t.is(got.url, `/v1beta/models/${MODEL}:generateContent`);
  t.is(got.headers['x-goog-api-key'], GEMINI_KEY);
  t.is(got.headers.authorization, undefined);
  t.deepEqual(got.json, {
    contents: [{ role: 'user', parts: [{ text: 'How many r in strawberry?' }] }],
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    generationConfig: { temperature: 0.5, maxOutputTokens: 100 },
  });

  const warn = gw.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'chat fields degraded in translation to Gemini');
  t.truthy(warn, 'translation warnings are logged at debug');
  t.is(warn.req, 'gem-req-1');
  t.true(warn.warnings.some((w: string) => w.startsWith('user dropped')));
  t.false(
    gw.logs.some((l) => l.includes(GEMINI_KEY)),
    'the api key never reaches the logs',
  );
});

test('stream: content reassembled exactly, one usage chunk after the finish chunk with include_usage', async (t) => {
  const { up, openai } = await geminiRig(t, (_r, res) => replySse(res, fixture(TEXT_SSE), { delayMs: 2 }));
  const stream = await openai.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  const finishes: string[] = [];
  const usages: Array<{ usage: unknown; choices: number; afterFinish: boolean }> = [];
  let first = true;
  for await (const c of stream) {
    if (first) t.is(c.choices[0]!.delta.role, 'assistant');
    first = false;
    t.regex(c.id, /^chatcmpl-/);
    t.is(c.model, MODEL);
    text += c.choices[0]?.delta?.content ?? '';
    if (c.choices[0]?.finish_reason) finishes.push(c.choices[0].finish_reason);
    if (c.usage) usages.push({ usage: c.usage, choices: c.choices.length, afterFinish: finishes.length === 1 });
  }
  t.is(text, recordedStreamText(TEXT_SSE));
  t.is(text, 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
  t.deepEqual(finishes, ['stop']);
  t.is(usages.length, 1);
  t.is(usages[0]!.choices, 0);
  t.true(usages[0]!.afterFinish);
  t.like(usages[0]!.usage as object, { prompt_tokens: 9, completion_tokens: 23 + 185, total_tokens: 217 });

  const got = up.received[0]!;
  t.is(got.url, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`);
  t.is(got.headers['x-goog-api-key'], GEMINI_KEY);
  t.is(got.json.stream, undefined, 'transport fields stay out of the Gemini body');
  t.is(got.json.stream_options, undefined);
});

test('stream without include_usage: no chunk carries usage, [DONE] at the end', async (t) => {
  const { gw } = await geminiRig(t, (_r, res) => replySse(res, fixture(TEXT_SSE)));
  const res = await postChat(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const data = sseData(await res.text());
  t.is(data.at(-1), '[DONE]');
  const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
  t.false(chunks.some((c) => c.usage));
  t.is(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), recordedStreamText(TEXT_SSE));
});

test('stream with thoughts: reasoning_content apart from content; reasoning_effort → thinkingConfig', async (t) => {
  // literal events (no recording has thought parts: see test/fixtures/gemini/PROVENANCE.md)
  const events = [
    { candidates: [{ content: { role: 'model', parts: [{ text: 'Counting letters', thought: true }] }, index: 0 }] },
    { candidates: [{ content: { role: 'model', parts: [{ text: ' one by one.', thought: true }] }, index: 0 }] },
    {
      candidates: [{ content: { role: 'model', parts: [{ text: 'Three.' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, thoughtsTokenCount: 7, totalTokenCount: 14 },
    },
  ];
  const { up, openai } = await geminiRig(t, (_r, res) => replySse(res, geminiSse(events)));
  const stream = await openai.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'r in strawberry?' }],
    stream: true,
    reasoning_effort: 'low',
    stream_options: { include_usage: true },
  });
  let reasoning = '';
  let content = '';
  let usage: any;
  for await (const c of stream) {
    reasoning += (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
    content += c.choices[0]?.delta?.content ?? '';
    if (c.usage) usage = c.usage;
  }
  t.is(reasoning, 'Counting letters one by one.');
  t.is(content, 'Three.');
  t.is(usage.completion_tokens, 9);
  t.is(usage.completion_tokens_details.reasoning_tokens, 7);
  t.deepEqual(up.received[0]!.json.generationConfig, { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } });
});

test('tool call (non-stream): tool_calls with minted id, name, arguments; finish_reason tool_calls; tools as parametersJsonSchema', async (t) => {
  const { up, openai } = await geminiRig(t, (_r, res) => replyJson(res, 200, fixture(TOOL_JSON)));
  const res = await openai.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'Weather in SF?' }],
    tools: [WEATHER_TOOL],
    tool_choice: 'auto',
  });
  const choice = res.choices[0]!;
  t.is(choice.finish_reason, 'tool_calls');
  t.is(choice.message.content, null);
  t.is(choice.message.tool_calls!.length, 1);
  const call = choice.message.tool_calls![0]! as { id: string; type: string; function: { name: string; arguments: string } };
  t.regex(call.id, /^call_gw_[0-9a-f]{24}_ts_[A-Za-z0-9_-]+$/);
  t.is(call.type, 'function');
  t.is(call.function.name, 'weather');
  t.deepEqual(JSON.parse(call.function.arguments), { location: 'San Francisco' });

  const body = up.received[0]!.json;
  t.deepEqual(body.tools, [
    { functionDeclarations: [{ name: 'weather', description: 'Current weather at a place', parametersJsonSchema: WEATHER_TOOL.function.parameters }] },
  ]);
  t.deepEqual(body.toolConfig, { functionCallingConfig: { mode: 'AUTO' } });
});

test('tool call (stream): one whole tool_calls delta, finish_reason tool_calls', async (t) => {
  const { openai } = await geminiRig(t, (_r, res) => replySse(res, fixture(TOOL_SSE)));
  const stream = await openai.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'Weather in SF?' }],
    tools: [WEATHER_TOOL],
    stream: true,
  });
  const calls: any[] = [];
  let finish: string | null = null;
  for await (const c of stream) {
    calls.push(...(c.choices[0]?.delta?.tool_calls ?? []));
    finish = c.choices[0]?.finish_reason ?? finish;
  }
  t.is(calls.length, 1);
  t.is(calls[0].index, 0);
  t.regex(calls[0].id, /^call_gw_[0-9a-f]{24}_ts_/);
  t.is(calls[0].function.name, 'weather');
  t.deepEqual(JSON.parse(calls[0].function.arguments), { location: 'San Francisco' });
  t.is(finish, 'tool_calls');
});

test('tool result round-trip: functionCall comes back with its thoughtSignature, functionResponse with the right name', async (t) => {
  const { up, openai } = await geminiRig(t, (_r, res) => replyJson(res, 200, fixture(up.received.length === 1 ? TOOL_JSON : TEXT_JSON)));
  const signature = fixtureJson(TOOL_JSON).candidates[0].content.parts[0].thoughtSignature as string;
  const user = { role: 'user' as const, content: 'Weather in SF?' };
  const first = await openai.chat.completions.create({ model: MODEL, messages: [user], tools: [WEATHER_TOOL] });
  const assistant = first.choices[0]!.message;
  const callId = assistant.tool_calls![0]!.id;
  const second = await openai.chat.completions.create({
    model: MODEL,
    tools: [WEATHER_TOOL],
    messages: [
      user,
      { role: 'assistant', content: assistant.content, tool_calls: assistant.tool_calls },
      { role: 'tool', tool_call_id: callId, content: '{"temperature_c": 18, "sky": "fog"}' },
    ],
  });
  t.is(second.choices[0]!.finish_reason, 'stop');

  t.is(up.received.length, 2);
  t.deepEqual(up.received[1]!.json.contents, [
    { role: 'user', parts: [{ text: 'Weather in SF?' }] },
    { role: 'model', parts: [{ functionCall: { name: 'weather', args: { location: 'San Francisco' } }, thoughtSignature: signature }] },
    { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { temperature_c: 18, sky: 'fog' } } }] },
  ]);
});

test("base_url pasted with Google's /v1beta/ suffix still reaches {origin}/v1beta/models/…", async (t) => {
  const { up, openai } = await geminiRig(t, (_r, res) => replyJson(res, 200, fixture(TEXT_JSON)), { baseUrlSuffix: '/v1beta/' });
  await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  t.is(up.received[0]!.url, `/v1beta/models/${MODEL}:generateContent`);
});

test("upstream 429 is kept, with retry-after from RetryInfo and Google's status as code", async (t) => {
  const { up, gw } = await geminiRig(t, (_r, res) => replyJson(res, 429, fixture(ERR_429)));
  const res = await postChat(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  t.is(res.status, 429);
  t.is(res.headers.get('retry-after'), '35');
  const body = (await res.json()) as any;
  t.is(body.error.type, 'rate_limit_error');
  t.is(body.error.code, 'RESOURCE_EXHAUSTED');
  t.regex(body.error.message, /You exceeded your current quota/);
  t.is(up.received.length, 1);
});

test('upstream 500 becomes 502 with the upstream status and message kept', async (t) => {
  const { gw } = await geminiRig(t, (_r, res) => replyJson(res, 500, { error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } }));
  const res = await postChat(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  t.is(res.status, 502);
  const body = (await res.json()) as any;
  t.is(body.error.upstream_status, 500);
  t.regex(body.error.message, /Internal error encountered\./);
  t.is(body.error.code, 'upstream_error');
  t.is(body.error.upstream_code, 'INTERNAL');
});

test('a 200 with a body that is not JSON becomes 502', async (t) => {
  const { gw } = await geminiRig(t, (_r, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>proxy page</html>');
  });
  const res = await postChat(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  t.is(res.status, 502);
  t.regex(((await res.json()) as any).error.message, /malformed/);
});

test('stream ended before finishReason: chunks so far, then one SSE error event, no [DONE]', async (t) => {
  const events = fixture(TEXT_SSE)
    .split('\r\n\r\n')
    .filter((e) => e.trim() !== '');
  // the upstream closes cleanly after two of three events: the finishReason never came
  const { gw } = await geminiRig(t, (_r, res) => replySse(res, `${events.slice(0, 2).join('\r\n\r\n')}\r\n\r\n`));
  const res = await postChat(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
  t.is(res.status, 200);
  const data = sseData(await res.text());
  t.false(data.includes('[DONE]'));
  const last = JSON.parse(data.at(-1)!);
  t.regex(last.error.message, /before finishReason/);
  t.is(last.error.code, 'upstream_truncated');
  t.is(
    data
      .slice(0, -1)
      .map((d) => JSON.parse(d).choices[0]?.delta?.content ?? '')
      .join(''),
    'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y',
  );
});

test('stream whose connection is cut mid-way: one SSE error event, and the openai client throws', async (t) => {
  // pauses between events, so the cut cannot overtake the events before it
  const { openai } = await geminiRig(t, (_r, res) => replySse(res, fixture(TEXT_SSE), { cutAfter: 2, delayMs: 50 }));
  const stream = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
  let text = '';
  await t.throwsAsync(async () => {
    for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
  });
  t.is(text, 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
});

test("an error payload inside the stream becomes the SSE error event with Google's message", async (t) => {
  const events = [
    { candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] }, index: 0 }] },
    { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } },
  ];
  const { gw } = await geminiRig(t, (_r, res) => replySse(res, geminiSse(events)));
  const res = await postChat(gw.url, { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
  const data = sseData(await res.text());
  const last = JSON.parse(data.at(-1)!);
  t.regex(last.error.message, /overloaded/);
  t.is(last.error.code, 'upstream_error');
  t.is(last.error.upstream_code, 'UNAVAILABLE');
});
