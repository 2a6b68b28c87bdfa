/**
 * `max_output_tokens` of a provider section: a request asking for more output tokens than
 * its served model's cap is sent with the cap, on every client format, native and
 * translated, per attempt (a fallback model gets its own cap); a request within the cap, or
 * to a model without one, goes as sent (its bytes unchanged); a bad setting is a config
 * error naming it.
 */
import type { ServerResponse } from 'node:http';
import test from 'ava';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixtureJson, replyJson, startUpstream, type MockUpstream, type Received } from '../helpers/upstream.ts';

/** A recorded success per API, by the path gw calls. */
const ANSWERS: Array<[RegExp, string]> = [
  [/^\/v1\/chat\/completions/, 'openai/spec-examples/chat.default.response.json'],
  [/^\/v1\/responses/, 'responses/spec-examples/text-input.response.json'],
  [/^\/v1\/messages/, 'anthropic/vercel-ai/anthropic-text.json'],
  [/:generateContent/, 'gemini/vercel-ai/google-text.json'],
];

/** Answers each API with its recorded success, a `broken-*` model with a 500. */
function answer(r: Received, res: ServerResponse): void {
  const broken = String(r.json?.model ?? '').startsWith('broken-');
  const file = ANSWERS.find(([path]) => path.test(r.url))?.[1];
  if (broken || file === undefined) replyJson(res, 500, { error: { message: 'boom', type: 'server_error', param: null, code: null } });
  else replyJson(res, 200, fixtureJson(file));
}

const PROVIDERS = (o: string) => `[providers.openai]
api_key = "sk-up"
base_url = "${o}/v1"
max_retries = 0
models = ["gpt-4o", "gpt-4o-mini", "gpt-5", "broken-big"]
[providers.openai.max_output_tokens]
"gpt-4o*" = 16384
"gpt-4o-mini" = 8192

[providers.anthropic]
api_key = "sk-ant-up"
base_url = "${o}"
models = ["claude-sonnet-4-6"]
max_output_tokens = 64000

[providers.gemini]
api_key = "g-up"
base_url = "${o}"
models = ["gemini-2.5-pro"]
max_output_tokens = 65536

[fallbacks]
broken-big = ["gpt-4o"]
`;

let gw: TestGateway;
let up: MockUpstream;

test.before(async () => {
  up = await startUpstream(answer);
  gw = await startGateway(baseConfig(PROVIDERS(up.origin)));
});
test.after.always(async () => {
  await gw?.stop();
  await up?.close();
});

/** POSTs `body` (which holds `marker` somewhere) to gw's `path`; what the upstream received for it (one entry per attempt). */
async function through(path: string, body: Record<string, unknown>, marker: string): Promise<Received[]> {
  const text = JSON.stringify(body);
  const r = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: text,
  });
  const answer = await r.text();
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${answer}`);
  return up.received.filter((x) => x.body.includes(marker));
}

const HI = [{ role: 'user', content: 'hi' }];
/** A marker in each request, to find its upstream calls among the others. */
let n = 0;
const mark = () => `cap-test-${++n}`;

test.serial('chat: max_tokens above the cap is sent as the cap; within it, or for a model without one, the bytes go unchanged', async (t) => {
  let user = mark();
  let [req] = await through('/v1/chat/completions', { model: 'gpt-4o', messages: HI, max_tokens: 100_000, user }, user);
  t.is(req!.json.max_tokens, 16384);
  t.deepEqual(req!.json.messages, HI);

  user = mark();
  [req] = await through('/v1/chat/completions', { model: 'gpt-4o-mini', messages: HI, max_completion_tokens: 10_000, max_tokens: 9000, user }, user);
  t.is(req!.json.max_completion_tokens, 8192, 'the exact id wins over the gpt-4o* pattern');
  t.is(req!.json.max_tokens, 8192);

  user = mark();
  const within = { model: 'gpt-4o', messages: HI, max_completion_tokens: 100, user };
  [req] = await through('/v1/chat/completions', within, user);
  t.is(req!.body, JSON.stringify(within), 'within the cap: the client bytes, unchanged');

  user = mark();
  const uncapped = { model: 'gpt-5', messages: HI, max_completion_tokens: 200_000, user };
  [req] = await through('/v1/chat/completions', uncapped, user);
  t.is(req!.body, JSON.stringify(uncapped), 'a model without a cap: unchanged');
});

test.serial('Messages (as Claude Code sends them): native to an anthropic provider and translated to an openai one, each capped', async (t) => {
  let user = mark();
  let [req] = await through('/v1/messages', { model: 'claude-sonnet-4-6', max_tokens: 128_000, messages: HI, metadata: { user_id: user } }, user);
  t.is(req!.url, '/v1/messages');
  t.is(req!.json.max_tokens, 64000);
  t.deepEqual(req!.json.messages, HI);

  user = mark();
  [req] = await through('/v1/messages', { model: 'gpt-4o', max_tokens: 128_000, messages: HI, metadata: { user_id: user } }, user);
  t.is(req!.url, '/v1/chat/completions');
  t.is(req!.json.max_tokens, 16384);
});

test.serial('Responses and the Gemini API: max_output_tokens and generationConfig.maxOutputTokens capped, the rest of generationConfig kept', async (t) => {
  let user = mark();
  let [req] = await through('/v1/responses', { model: 'gpt-4o', input: 'hi', max_output_tokens: 100_000, user }, user);
  t.is(req!.url, '/v1/responses');
  t.is(req!.json.max_output_tokens, 16384);

  // the Gemini API has no user field: its marker is the prompt text
  user = mark();
  [req] = await through(
    '/v1beta/models/gemini-2.5-pro:generateContent',
    {
      contents: [{ role: 'user', parts: [{ text: user }] }],
      generationConfig: { maxOutputTokens: 100_000, temperature: 0.2 },
    },
    user,
  );
  t.regex(req!.url, /gemini-2\.5-pro:generateContent/);
  t.deepEqual(req!.json.generationConfig, { maxOutputTokens: 65536, temperature: 0.2 });

  user = mark();
  [req] = await through(
    '/v1beta/models/gpt-4o:generateContent',
    {
      contents: [{ role: 'user', parts: [{ text: user }] }],
      generationConfig: { maxOutputTokens: 100_000 },
    },
    user,
  );
  t.is(req!.url, '/v1/chat/completions');
  t.is(req!.json.max_tokens, 16384);
});

test.serial('per attempt: a fallback model gets its own cap, the failed attempt went uncapped', async (t) => {
  const user = mark();
  const calls = await through('/v1/chat/completions', { model: 'broken-big', messages: HI, max_tokens: 100_000, user }, user);
  t.deepEqual(
    calls.map((c) => [c.json.model, c.json.max_tokens]),
    [
      ['broken-big', 100_000],
      ['gpt-4o', 16384],
    ],
  );
});

test('a bad max_output_tokens is a config error naming it', async (t) => {
  for (const bad of ['max_output_tokens = 0', 'max_output_tokens = "lots"', '[providers.openai.max_output_tokens]\n"gpt-4o" = -1']) {
    const err = await t.throwsAsync(
      startGateway(baseConfig(`[providers.openai]\napi_key = "sk-up"\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["gpt-4o"]\n${bad}\n`)),
    );
    t.regex(err!.message, /providers\.openai\.max_output_tokens/, bad);
  }
});

test('the budget reserves what the served model can answer: a strict budget admits a request whose asked cap it could not hold', async (t) => {
  // $10 per million output tokens, $1 to spend: 128,000 tokens reserve $1.28, 65,536 reserve $0.66
  const g = await startGateway(
    baseConfig(`[providers.capped]
kind = "openai"
api_key = "sk-up"
base_url = "${up.origin}/v1"
models = ["capped-m"]
max_output_tokens = 65536
[providers.open]
kind = "openai"
api_key = "sk-up"
base_url = "${up.origin}/v1"
models = ["open-m"]
[pricing."capped-m"]
input_per_mtok = 0.001
output_per_mtok = 10
[pricing."open-m"]
input_per_mtok = 0.001
output_per_mtok = 10
[extensions.budget]
default_budget = 1.0
strict = true
`),
  );
  t.teardown(() => g.stop());
  const post = (model: string) =>
    fetch(`${g.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: HI, max_tokens: 128_000 }),
    });
  const open = await post('open-m');
  t.is(open.status, 429);
  t.regex(((await open.json()) as { error: { message: string } }).error.message, /reserves \$1\.28/);
  const capped = await post('capped-m');
  t.is(capped.status, 200, await capped.clone().text());
});
