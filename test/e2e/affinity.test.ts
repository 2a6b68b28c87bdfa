/**
 * Prompt-cache affinity (lib/resilience/affinity.ts) through real sockets: two members
 * serve model `m` (self-defined OpenAI-compatible kinds, each a mock upstream), and which
 * upstream received each turn says which member served it.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { chatCompletion } from '../helpers/completion.ts';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { replyJson, startUpstream, type MockUpstream } from '../helpers/upstream.ts';

interface Pair {
  gw: TestGateway;
  a: MockUpstream;
  b: MockUpstream;
  /** Whether `a` answers 500 (a failing member). */
  failA: boolean;
}

/** Two members `a` and `b` serving `m`; `routing` is appended to the config (e.g. a `[routing]` section). */
async function pair(t: ExecutionContext, routing = ''): Promise<Pair> {
  const p = { failA: false } as Pair;
  p.a = await startUpstream((_r, res) => (p.failA ? replyJson(res, 500, { error: { message: 'down' } }) : replyJson(res, 200, chatCompletion('from a'))));
  p.b = await startUpstream((_r, res) => replyJson(res, 200, chatCompletion('from b')));
  const member = (name: string, up: MockUpstream) =>
    `[providers.${name}]\napi_key = "sk-${name}"\nbase_url = "${up.origin}/v1"\nmodels = ["m"]\nmax_retries = 0\n`;
  p.gw = await startGateway(baseConfig(member('a', p.a) + member('b', p.b) + routing));
  t.teardown(async () => {
    await p.gw.stop();
    await p.a.close();
    await p.b.close();
  });
  return p;
}

/** Runs `send` and names the member whose upstream got the (one) call. */
async function served(p: Pair, send: () => Promise<unknown>): Promise<'a' | 'b'> {
  const a0 = p.a.received.length;
  const b0 = p.b.received.length;
  await send();
  const da = p.a.received.length - a0;
  const db = p.b.received.length - b0;
  if (da + db !== 1) throw new Error(`expected one upstream call, got a=${da} b=${db}`);
  return da === 1 ? 'a' : 'b';
}

/** Members each conversation was served by, over `turns` turns of `convs` conversations interleaved. */
async function interleave(convs: number, turns: number, turn: (conv: number, n: number) => Promise<'a' | 'b'>): Promise<Array<Set<string>>> {
  const seen = Array.from({ length: convs }, () => new Set<string>());
  for (let n = 0; n < turns; n++) for (let c = 0; c < convs; c++) seen[c]!.add(await turn(c, n));
  return seen;
}

/** A chat conversation's messages at turn `n`: its system prompt and first user turn, then n more turns. */
function chatTurn(conv: number, n: number): OpenAI.ChatCompletionMessageParam[] {
  const ms: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: `conversation ${conv}: fix the bug in parser.ts` },
  ];
  for (let i = 0; i < n; i++) ms.push({ role: 'assistant', content: `step ${i}` }, { role: 'user', content: `go on (${i})` });
  return ms;
}

test('20 turns of 3 interleaved chat conversations over 2 members: each conversation stays on one member, new ones are spread', async (t) => {
  const p = await pair(t);
  const client = new OpenAI({ baseURL: p.gw.baseURL, apiKey: KEY, maxRetries: 0 });
  const seen = await interleave(3, 20, (c, n) => served(p, () => client.chat.completions.create({ model: 'm', messages: chatTurn(c, n) })));
  for (const s of seen) t.is(s.size, 1, `a conversation went to ${[...s].join(' and ')}`);
  // round_robin still spread the three new conversations over both members
  t.deepEqual(new Set(seen.map((s) => [...s][0])), new Set(['a', 'b']));
  t.is(p.a.received.length + p.b.received.length, 60);
});

test('affinity off for a model group ([routing.models."m"] affinity = false): round_robin alternates the turns of one conversation', async (t) => {
  const p = await pair(t, '[routing.models."m"]\naffinity = false\n');
  const client = new OpenAI({ baseURL: p.gw.baseURL, apiKey: KEY, maxRetries: 0 });
  const seen = await interleave(1, 4, (c, n) => served(p, () => client.chat.completions.create({ model: 'm', messages: chatTurn(c, n) })));
  t.is(seen[0]!.size, 2);
});

test('a failing member: its conversations move to the other member at once and stay there after it recovers', async (t) => {
  const p = await pair(t, '[routing]\nbreaker_failures = 1\nbreaker_cooldown_seconds = 0.2\n');
  const post = async (conv: number, n: number) => {
    const res = await fetch(`${p.gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: chatTurn(conv, n) }),
    });
    t.is(res.status, 200);
    await res.body?.cancel();
    return res.headers.get('x-gw-provider') as 'a' | 'b';
  };
  const before: string[] = [];
  for (let c = 0; c < 3; c++) before.push(await post(c, 0));
  t.deepEqual(before, ['a', 'b', 'a']);
  p.failA = true;
  const during: string[] = [];
  for (let c = 0; c < 3; c++) during.push(await post(c, 1));
  t.deepEqual(during, ['b', 'b', 'b']);
  p.failA = false;
  await new Promise((r) => setTimeout(r, 300));
  // a is healthy again (its cooldown is over), but the moved conversations stay on b
  const after = await interleave(3, 4, (c, n) => post(c, n + 2) as Promise<'a' | 'b'>);
  for (const s of after) t.deepEqual([...s], ['b']);
  // and a new conversation may go to a again
  const fresh = new Set<string>();
  for (let c = 3; c < 5; c++) fresh.add(await post(c, 0));
  t.true(fresh.has('a'));
});

/**
 * Three conversations interleaved, 4 turns each (an odd count: round_robin alone would
 * alternate each one's turns). With an id source the first user turn differs every turn:
 * only the id can keep a conversation on one member.
 */
async function byId(p: Pair, turn: (conv: number, n: number) => Promise<unknown>): Promise<Array<Set<string>>> {
  return interleave(3, 4, (c, n) => served(p, () => turn(c, n)));
}

/** Each conversation kept one member, and the first two (new: round-robin) got different members. */
function apart(t: ExecutionContext, seen: Array<Set<string>>): void {
  t.deepEqual(
    seen.map((s) => s.size),
    [1, 1, 1],
  );
  t.not([...seen[0]!][0], [...seen[1]!][0]);
}

test('key sources on chat completions: prompt_cache_key, then user', async (t) => {
  const p = await pair(t);
  const client = new OpenAI({ baseURL: p.gw.baseURL, apiKey: KEY, maxRetries: 0 });
  const ask = (c: number, n: number) => ({ model: 'm', messages: [{ role: 'user' as const, content: `turn ${n} of ${c}` }] });
  apart(t, await byId(p, (c, n) => client.chat.completions.create({ ...ask(c, n), prompt_cache_key: `pck-${c}` })));
  apart(t, await byId(p, (c, n) => client.chat.completions.create({ ...ask(c, n), user: `user-${c}` })));
  // prompt_cache_key comes first: one key, two users, one member
  const seen = await interleave(3, 3, (c, n) =>
    served(p, () =>
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `x ${n} ${c}` }], prompt_cache_key: 'shared', user: `u${c}` }),
    ),
  );
  t.deepEqual(new Set(seen.flatMap((s) => [...s])).size, 1);
});

test('key sources on Messages: metadata.user_id, else system and the first user message', async (t) => {
  const p = await pair(t);
  const anthropic = new Anthropic({ baseURL: p.gw.url, apiKey: KEY, maxRetries: 0 });
  apart(
    t,
    await byId(p, (c, n) =>
      anthropic.messages.create({
        model: 'm',
        max_tokens: 10,
        metadata: { user_id: `user_x_session_${c}` },
        messages: [{ role: 'user', content: `turn ${n} of ${c}` }],
      }),
    ),
  );
  const turns = (c: number, n: number): Anthropic.MessageParam[] => {
    const ms: Anthropic.MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: `conversation ${c}` }] }];
    for (let i = 0; i < n; i++) ms.push({ role: 'assistant', content: `ok ${i}` }, { role: 'user', content: `more ${i}` });
    return ms;
  };
  apart(
    t,
    await byId(p, (c, n) =>
      anthropic.messages.create({
        model: 'm',
        max_tokens: 10,
        system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
        messages: turns(c, n),
      }),
    ),
  );
});

test('key sources on Responses: prompt_cache_key, user, else instructions and the first user input', async (t) => {
  const p = await pair(t);
  const client = new OpenAI({ baseURL: p.gw.baseURL, apiKey: KEY, maxRetries: 0 });
  apart(t, await byId(p, (c, n) => client.responses.create({ model: 'm', input: `turn ${n} of ${c}`, prompt_cache_key: `codex-${c}`, store: false })));
  apart(t, await byId(p, (c, n) => client.responses.create({ model: 'm', input: `turn ${n} of ${c}`, user: `u-${c}`, store: false })));
  const input = (c: number, n: number): OpenAI.Responses.ResponseInput => {
    const items: OpenAI.Responses.ResponseInput = [{ role: 'user', content: [{ type: 'input_text', text: `conversation ${c}` }] }];
    for (let i = 0; i < n; i++) items.push({ role: 'assistant', content: `ok ${i}` }, { role: 'user', content: `more ${i}` });
    return items;
  };
  apart(t, await byId(p, (c, n) => client.responses.create({ model: 'm', instructions: 'You are Codex.', input: input(c, n), store: false })));
});

test('key sources on Gemini: systemInstruction and the first user turn', async (t) => {
  const p = await pair(t);
  const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: p.gw.url } });
  const contents = (c: number, n: number) => {
    const cs = [{ role: 'user', parts: [{ text: `conversation ${c}` }] }];
    for (let i = 0; i < n; i++) cs.push({ role: 'model', parts: [{ text: `ok ${i}` }] }, { role: 'user', parts: [{ text: `more ${i}` }] });
    return cs;
  };
  apart(t, await byId(p, (c, n) => ai.models.generateContent({ model: 'm', contents: contents(c, n), config: { systemInstruction: 'You are Gemini CLI.' } })));
});
