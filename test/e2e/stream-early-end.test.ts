/**
 * A stream that ends early after its first byte is charged for what it streamed
 * (docs/design.md "usage fine print", issue 14 item 8), on every client format, native and
 * translated: the usage the upstream already reported (Messages' message_start, Gemini's
 * running usageMetadata), else an estimate (the prompt estimate plus the output deltas sent),
 * marked `estimated`. The usage extension, the budget, the rate-limit token window and the
 * request log all see the same charge. The client leaves mid-stream (499), the upstream is
 * cut, a timeout fires; the Redis store too. Recorded upstream streams, held or cut after
 * their first events; real sockets.
 */
import test, { type ExecutionContext } from 'ava';
import { estimateTokens } from '../../lib/common/estimate.ts';
import { usd } from '../../plugins/extensions/budget/spend.ts';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { redisFor } from '../helpers/redis.ts';
import { fixture, startUpstream, type MockUpstream } from '../helpers/upstream.ts';
import { chunksToSse } from './responses-helpers.ts';

/** SSE frames of a recorded stream (blank-line separated), framing kept. */
function frames(sse: string): string[] {
  const sep = sse.includes('\r\n\r\n') ? '\r\n\r\n' : '\n\n';
  return sse
    .split(sep)
    .filter((e) => e.trim() !== '')
    .map((e) => e + sep);
}

const OPENAI = frames(fixture('openai/vercel-ai/openai-text.sse'));
const ANTHROPIC = frames(fixture('anthropic/anthropic-sdk-typescript/basic.sse'));
const GEMINI = frames(fixture('gemini/vercel-ai/google-text.sse'));
const RESPONSES = frames(chunksToSse(fixture('responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt').split('\n')));

/** The `delta.content` texts of the first `n` chat chunks of the openai recording. */
function openaiTexts(n: number): string[] {
  return OPENAI.slice(0, n).map((f) => (JSON.parse(f.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]!.delta.content ?? '');
}

/** ⌈UTF-8 bytes / 4⌉ of the texts: the estimate of output that no usage report covers. */
const outputTokens = (texts: string[]): number => Math.ceil(Buffer.byteLength(texts.join(''), 'utf8') / 4);

const PRICE = { input: 1, output: 2 };
const MODELS = { compat: 'local-x', anthropic: 'claude-x', gemini: 'gemini-x', openai: 'gpt-x' } as const;
type Kind = keyof typeof MODELS;

/** How the stream ends after the first events: the client leaves, the upstream cuts the connection, or goes silent past timeout_seconds. */
type Ending = 'client' | 'cut' | 'timeout';

interface Case {
  kind: Kind;
  /** Client request: path and JSON body. */
  path: string;
  body: Record<string, unknown>;
  /** What gw's request context holds as the body (the Gemini routes add the URL's model). */
  rcBody?: Record<string, unknown>;
  /** Upstream frames, and how many go out before the stream ends. */
  upstream: string[];
  send: number;
  /** A text the client must have received before it leaves (the last delta sent). */
  marker: string;
  /** The charge: prompt and completion tokens, and whether it is an estimate. */
  prompt: number;
  completion: number;
  estimated: boolean;
}

async function setup(t: ExecutionContext, c: Case, ending: Ending, store = ''): Promise<{ gw: TestGateway; up: MockUpstream }> {
  let held: (() => void) | undefined;
  const up = await startUpstream(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const f of c.upstream.slice(0, c.send)) res.write(f);
    if (ending === 'cut') {
      await new Promise((r) => setTimeout(r, 50));
      res.socket?.destroy();
      return;
    }
    // hold the stream open (the client leaves, or the gap timeout fires) until the connection closes
    await new Promise<void>((r) => {
      held = r;
      res.once('close', () => r());
    });
  });
  const timeout = ending === 'timeout' ? 'timeout_seconds = 0.5\n' : '';
  const provider = (name: Kind, kind: string, base: string) =>
    `[providers.${name}]\nkind = "${kind}"\napi_key = "sk-upstream-0123456789"\nbase_url = "${base}"\nmax_retries = 0\nmodels = ["${MODELS[name]}"]\n${timeout}`;
  const pricing = Object.values(MODELS)
    .map((m) => `[pricing."${m}"]\ninput_per_mtok = ${PRICE.input}\noutput_per_mtok = ${PRICE.output}\n`)
    .join('\n');
  const gw = await startGateway(
    baseConfig(`${store}
${provider('compat', 'vllm', `${up.origin}/v1`)}
${provider('anthropic', 'anthropic', up.origin)}
${provider('gemini', 'gemini', up.origin)}
${provider('openai', 'openai', `${up.origin}/v1`)}
${pricing}
[extensions.rate_limit]
requests_per_minute = 1000
tokens_per_minute = 10000000
[extensions.budget]
default_budget = 100
[extensions.usage]
[extensions.request_log]
`),
  );
  t.teardown(async () => {
    held?.();
    await gw.stop();
    await up.close();
  });
  return { gw, up };
}

async function getJson(gw: TestGateway, path: string): Promise<any> {
  const r = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return r.json();
}

/** Polls until `check` gives a value (the request's accounting runs once gw saw the stream end). */
async function eventually<T>(check: () => Promise<T | undefined>): Promise<T | undefined> {
  for (let i = 0; i < 150; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

/**
 * Runs the case: streams until the marker arrived, then the client leaves (or reads to the
 * end: gw's error event after a cut or a timeout); then checks every accounting view.
 */
async function runCase(t: ExecutionContext, c: Case, ending: Ending, store = ''): Promise<void> {
  const { gw } = await setup(t, c, ending, store);
  const ac = new AbortController();
  const r = await fetch(`${gw.url}${c.path}`, {
    method: 'POST',
    signal: ac.signal,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(c.body),
  });
  t.is(r.status, 200);
  const reader = r.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const marker = JSON.stringify(c.marker).slice(1, -1);
  while (!text.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  t.true(text.includes(marker), `the client got the deltas before the end: ${text.slice(-300)}`);
  if (ending === 'client') ac.abort();
  else {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    t.regex(text, ending === 'timeout' ? /timeout|timed out/i : /error/, "the stream ended with gw's error event");
  }

  const model = MODELS[c.kind];
  const usage = await eventually(async () => ((await getJson(gw, '/v1/usage')) as any[]).find((u) => u.model === model));
  t.like(
    usage,
    { key: 'default', model, prompt_tokens: c.prompt, completion_tokens: c.completion, requests: 1, estimated_requests: c.estimated ? 1 : 0 },
    'usage',
  );
  const series = ((await getJson(gw, '/v1/usage?bucket=hour&group_by=model')) as any[]).find((u) => u.model === model);
  t.like(
    series,
    { requests: 1, errors: ending === 'client' ? 0 : 1, estimated_requests: c.estimated ? 1 : 0, prompt_tokens: c.prompt, completion_tokens: c.completion },
    'usage over time',
  );

  const budget = ((await getJson(gw, '/v1/budget')) as any[]).find((b) => b.key === 'default');
  t.like(
    budget,
    { spent_usd: usd((c.prompt * PRICE.input + c.completion * PRICE.output) / 1e6), reserved_usd: 0 },
    'budget settled with the charge, hold gone',
  );

  const window = ((await getJson(gw, '/v1/rate_limit')) as any[]).find((w) => w.key === 'default');
  t.is(window.tokens, c.prompt + c.completion, 'the token window records it');

  const entry = await eventually(async () => ((await getJson(gw, '/v1/requests?limit=5')) as any[]).find((e) => e.model === (c.body.model ?? model)));
  t.like(
    entry,
    {
      status: ending === 'client' ? 499 : ending === 'timeout' ? 504 : 502,
      prompt_tokens: c.prompt,
      completion_tokens: c.completion,
      usage_estimated: c.estimated,
    },
    'request log',
  );
  t.false(
    gw.logs.some((l) => l.includes('"level":50')),
    'nothing logged as an internal error',
  );
}

const HI = [{ role: 'user', content: 'hi' }];
const chatBody = (model: string) => ({ model, messages: HI, stream: true });
const messagesBody = (model: string) => ({ model, max_tokens: 50, messages: HI, stream: true });
const responsesBody = (model: string) => ({ model, input: 'hi', stream: true });
const GEMINI_BODY = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
const geminiPath = (model: string) => `/v1beta/models/${model}:streamGenerateContent?alt=sse`;

/** The openai recording sent up to the fourth chunk (role, then three deltas): no usage reported, all estimated. */
function estimatedOnCompat(path: string, body: Record<string, unknown>, rcBody = body): Case {
  const texts = openaiTexts(4);
  return {
    kind: 'compat',
    path,
    body,
    rcBody,
    upstream: OPENAI,
    send: 4,
    marker: texts.at(-1)!,
    prompt: estimateTokens(rcBody),
    completion: outputTokens(texts),
    estimated: true,
  };
}

/** basic.sse up to " there": message_start reported 11 input and 1 output token; "Hello there" (11 bytes, 3 tokens) came after. */
function anthropicCase(path: string, body: Record<string, unknown>): Case {
  return { kind: 'anthropic', path, body, upstream: ANTHROPIC, send: 5, marker: ' there', prompt: 11, completion: 1 + 3, estimated: true };
}

/** google-text.sse up to its second event: the running usageMetadata covers everything sent (9 prompt, 23 + 185 thought tokens). */
function geminiCase(path: string, body: Record<string, unknown>): Case {
  return { kind: 'gemini', path, body, upstream: GEMINI, send: 2, marker: 'awbe', prompt: 9, completion: 23 + 185, estimated: false };
}

test('chat, common-format kind: the client leaves mid-stream → charged the prompt estimate + the deltas sent, estimated', async (t) => {
  await runCase(t, estimatedOnCompat('/v1/chat/completions', chatBody(MODELS.compat)), 'client');
});

test("chat, anthropic kind: the client leaves → message_start's input tokens, the output estimated from the deltas after it", async (t) => {
  await runCase(t, anthropicCase('/v1/chat/completions', chatBody(MODELS.anthropic)), 'client');
});

test("chat, gemini kind: the client leaves → Gemini's running usageMetadata, exact (not estimated)", async (t) => {
  await runCase(t, geminiCase('/v1/chat/completions', chatBody(MODELS.gemini)), 'client');
});

test("Messages native: the client leaves after some deltas → message_start's input tokens + the deltas, estimated", async (t) => {
  await runCase(t, anthropicCase('/v1/messages', messagesBody(MODELS.anthropic)), 'client');
});

test('Messages translated: the client leaves → the prompt estimate + the deltas, estimated', async (t) => {
  await runCase(t, estimatedOnCompat('/v1/messages', messagesBody(MODELS.compat)), 'client');
});

test('Responses native: the client leaves after some reasoning summary deltas → the prompt estimate + the deltas, estimated', async (t) => {
  // created, in_progress, output_item.added, reasoning_summary_part.added, then three reasoning_summary_text.delta
  const texts = RESPONSES.slice(0, 7)
    .map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)) as { type: string; delta?: string })
    .filter((e) => e.type.endsWith('.delta'))
    .map((e) => e.delta!);
  t.is(texts.length, 3);
  const body = responsesBody(MODELS.openai);
  await runCase(
    t,
    {
      kind: 'openai',
      path: '/v1/responses',
      body,
      upstream: RESPONSES,
      send: 7,
      marker: texts.at(-1)!,
      prompt: estimateTokens(body),
      completion: outputTokens(texts),
      estimated: true,
    },
    'client',
  );
});

test('Responses translated: the client leaves → the prompt estimate + the deltas, estimated', async (t) => {
  await runCase(t, estimatedOnCompat('/v1/responses', responsesBody(MODELS.compat)), 'client');
});

test('Gemini native: the client leaves → the running usageMetadata already reported, exact', async (t) => {
  await runCase(t, geminiCase(geminiPath(MODELS.gemini), GEMINI_BODY), 'client');
});

test('Gemini translated: the client leaves → the prompt estimate + the deltas, estimated', async (t) => {
  await runCase(t, estimatedOnCompat(geminiPath(MODELS.compat), GEMINI_BODY, { ...GEMINI_BODY, model: MODELS.compat }), 'client');
});

test('the upstream cuts the connection mid-stream: charged what it streamed (Messages native, chat on a common-format kind)', async (t) => {
  await runCase(t, anthropicCase('/v1/messages', messagesBody(MODELS.anthropic)), 'cut');
});

test('the upstream cuts the connection mid-stream on a common-format kind: the estimate', async (t) => {
  await runCase(t, estimatedOnCompat('/v1/chat/completions', chatBody(MODELS.compat)), 'cut');
});

test('a gap past timeout_seconds mid-stream: 504 error event, charged what it streamed (Gemini native: exact)', async (t) => {
  await runCase(t, geminiCase(geminiPath(MODELS.gemini), GEMINI_BODY), 'timeout');
});

test('a gap past timeout_seconds mid-stream on a common-format kind: the estimate', async (t) => {
  await runCase(t, estimatedOnCompat('/v1/chat/completions', chatBody(MODELS.compat)), 'timeout');
});

test('Redis store: a client that leaves mid-stream is charged there too (usage, budget, token window)', async (t) => {
  const redis = await redisFor(t);
  if (!redis) return;
  await runCase(t, anthropicCase('/v1/messages', messagesBody(MODELS.anthropic)), 'client', `[store]\nurl = "${redis.url}"\n`);
});

test('a failure before the first byte still counts nothing (docs/design.md)', async (t) => {
  const c = anthropicCase('/v1/messages', messagesBody(MODELS.anthropic));
  const { gw } = await setup(t, { ...c, send: 0 }, 'cut');
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(c.body),
  });
  t.is(r.status, 502);
  await r.text();
  t.deepEqual(await getJson(gw, '/v1/usage'), []);
  t.like(
    ((await getJson(gw, '/v1/budget')) as any[]).find((b) => b.key === 'default'),
    { spent_usd: 0, reserved_usd: 0 },
  );
  t.is(((await getJson(gw, '/v1/rate_limit')) as any[]).find((w) => w.key === 'default').tokens, 0);
});
