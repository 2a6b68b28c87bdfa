/**
 * The replay kind's matching and record modes, and the cassette commands:
 * - `match = "sequence"` replays a 5-turn agent loop whose tool results change from run to run
 *   (a timestamp), with a call gw retried after an upstream 500; `exact` misses at the first
 *   changed tool result and names it;
 * - `record_mode = "once"` records a whole session from the real upstream into an empty
 *   cassette, then replays only; `"new"` replays what is recorded and records the rest;
 * - `speed = 1` keeps the recorded pace of a stream, `speed = 0` does not wait;
 * - `gw cassette show`, `gw cassette redact` and `gw replay check` on the results.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { runCli } from '../helpers/cli.ts';
import { chatCompletion } from '../helpers/completion.ts';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { replyJson, replySse, startUpstream, type Received, toSse } from '../helpers/upstream.ts';

const UPSTREAM_KEY = 'sk-agent-upstream-provider-key-1234';
const MODEL = 'agent-model';
const TOOL = { type: 'function' as const, function: { name: 'step', parameters: { type: 'object', properties: { n: { type: 'integer' } } } } };

async function tempDir(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-rr-modes-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function gatewayIn(t: ExecutionContext, dir: string, name: string, toml: string): Promise<TestGateway> {
  await mkdir(join(dir, name));
  const gw = await startGateway(baseConfig(toml), { dir: join(dir, name) });
  t.teardown(() => gw.stop({ keepDir: true }));
  return gw;
}

/**
 * The agent's upstream: four tool calls (`call_step_<n>`, one per turn), then an answer naming
 * the tool results it saw; the third turn's first attempt fails with a 500 (gw retries it).
 */
async function agentUpstream() {
  let failedOnce = false;
  return startUpstream((r: Received, res: ServerResponse) => {
    const turn = r.json.messages.filter((m: { role: string }) => m.role === 'tool').length;
    if (turn === 2 && !failedOnce) {
      failedOnce = true;
      return replyJson(res, 500, { error: { message: 'overloaded', type: 'server_error' } });
    }
    const base = { id: `chatcmpl-${turn}`, object: 'chat.completion', created: 1, model: MODEL };
    const usage = { prompt_tokens: 10 + turn, completion_tokens: 5, total_tokens: 15 + turn };
    if (turn < 4) {
      const call = { id: `call_step_${turn}`, type: 'function', function: { name: 'step', arguments: JSON.stringify({ n: turn }) } };
      return replyJson(res, 200, {
        ...base,
        choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }],
        usage,
      });
    }
    return replyJson(res, 200, {
      ...base,
      choices: [{ index: 0, message: { role: 'assistant', content: `done after ${turn} steps` }, finish_reason: 'stop' }],
      usage,
    });
  });
}

/** The agent loop: call, run the tool (its output has the time in it: it changes every run), until an answer. */
async function runAgent(client: OpenAI): Promise<{ calls: Array<{ id: string; args: string }>; answer: string; attempts: string[] }> {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You run steps.' },
    { role: 'user', content: 'Run the steps, then say when you are done.' },
  ];
  const calls: Array<{ id: string; args: string }> = [];
  const attempts: string[] = [];
  for (let turn = 0; turn < 5; turn++) {
    const { data, response } = await client.chat.completions.create({ model: MODEL, messages, tools: [TOOL] }).withResponse();
    attempts.push(response.headers.get('x-gw-attempts') ?? '');
    const m = data.choices[0]!.message;
    if (!m.tool_calls?.length) return { calls, answer: m.content ?? '', attempts };
    messages.push(m);
    for (const c of m.tool_calls) {
      const fn = (c as { function: { arguments: string } }).function;
      calls.push({ id: c.id, args: fn.arguments });
      messages.push({ role: 'tool', tool_call_id: c.id, content: `step ran at ${process.hrtime.bigint()}` });
    }
  }
  throw new Error('the agent did not finish in 5 turns');
}

const liveSection = (origin: string) => `[providers.agent]
kind = "openai"
api_key = "${UPSTREAM_KEY}"
base_url = "${origin}/v1"
models = ["${MODEL}"]
max_retries = 1
`;

test('sequence replays a 5-turn agent loop with a retried call whose tool results change; exact misses at the first changed result', async (t) => {
  const dir = await tempDir(t);
  const cassette = join(dir, 'agent.jsonl');
  const up = await agentUpstream();
  const live = await gatewayIn(t, dir, 'live', `${liveSection(up.origin)}\n[extensions.recorder]\npath = "${cassette}"\n`);
  const recorded = await runAgent(new OpenAI({ baseURL: live.baseURL, apiKey: KEY, maxRetries: 0 }));
  await live.stop({ keepDir: true });
  await up.close();
  t.is(recorded.answer, 'done after 4 steps');
  t.deepEqual(recorded.attempts, ['1', '1', '2', '1', '1'], 'the third call was retried after a 500');
  const entries = readFileSync(cassette, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.is(entries.length, 6);
  t.deepEqual(
    entries.map((e) => e.response.status),
    [200, 200, 500, 200, 200, 200],
  );
  t.is(entries[2].gw.request_id, entries[3].gw.request_id, 'a retry is an exchange of the same request');
  t.deepEqual([entries[2].gw.retry, entries[3].gw.retry], [0, 1]);
  t.is(entries[2].gw.usage, undefined, 'the failed attempt is not the one charged');

  const seq = await gatewayIn(t, dir, 'seq', `[providers.agent]\nkind = "replay"\ncassette = "${cassette}"\nmatch = "sequence"\nmax_retries = 1\n`);
  const replayed = await runAgent(new OpenAI({ baseURL: seq.baseURL, apiKey: KEY, maxRetries: 0 }));
  t.deepEqual(replayed, recorded, 'the same calls (ids, arguments), the same answer, the same retry');
  // a sixth run of the conversation has nothing left to replay
  const more = await new OpenAI({ baseURL: seq.baseURL, apiKey: KEY, maxRetries: 0 }).chat.completions
    .create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'You run steps.' },
        { role: 'user', content: 'Run the steps, then say when you are done.' },
      ],
      tools: [TOOL],
    })
    .catch((e) => e);
  t.is(more.status, 502);
  t.regex(more.message, /this conversation had 6 recorded calls and this is call 7/);

  const exact = await gatewayIn(t, dir, 'exact', `[providers.agent]\nkind = "replay"\ncassette = "${cassette}"\nmax_retries = 1\n`);
  const err = await runAgent(new OpenAI({ baseURL: exact.baseURL, apiKey: KEY, maxRetries: 0 })).catch((e) => e);
  t.is(err.status, 502);
  t.is(err.code, 'replay_miss');
  t.regex(err.message, /first difference at messages\[3\]\.content: recorded "step ran at \d+", got "step ran at \d+"/);
});

test('record_mode once records a session into an empty cassette then replays only; new replays what it has and records the rest', async (t) => {
  const dir = await tempDir(t);
  const cassette = join(dir, 'once.jsonl');
  const up = await startUpstream((r, res) => {
    // an upstream that quotes the key it refused, as OpenAI's 401 does
    if (r.json.messages.at(-1).content === 'leak')
      return replyJson(res, 401, { error: { message: `Incorrect API key provided: ${UPSTREAM_KEY}`, code: 'invalid_api_key' } });
    const text = `echo: ${r.json.messages.at(-1).content}`;
    if (r.json.stream)
      return replySse(
        res,
        toSse([
          { id: 'c', object: 'chat.completion.chunk', created: 1, model: MODEL, choices: [{ index: 0, delta: { content: text }, finish_reason: 'stop' }] },
        ]),
      );
    replyJson(res, 200, chatCompletion(text, MODEL, { prompt_tokens: 3, completion_tokens: 2 }));
  });
  t.teardown(() => up.close());
  const section = (mode: string) => `[providers.chat]
kind = "replay"
cassette = "${cassette}"
models = ["${MODEL}"]
record_mode = "${mode}"
[providers.chat.upstream]
kind = "openai"
api_key = "${UPSTREAM_KEY}"
base_url = "${up.origin}/v1"
`;
  const ask = (gw: TestGateway, content: string) =>
    new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content }] }).then(
      (c) => c.choices[0]!.message.content,
      (e) => `${e.status} ${e.code}`,
    );

  const first = await gatewayIn(t, dir, 'once1', section('once'));
  t.is(await ask(first, 'one'), 'echo: one');
  t.is(await ask(first, 'one'), 'echo: one', 'while recording, every request goes to the upstream');
  await first.stop({ keepDir: true });
  t.is(up.received.length, 2);
  const bytes = readFileSync(cassette, 'utf8');
  t.is(bytes.trim().split('\n').length, 2);
  t.false(bytes.includes(UPSTREAM_KEY));
  t.true(bytes.includes('https://upstream.invalid/v1'), "the real upstream's origin is not kept");

  const second = await gatewayIn(t, dir, 'once2', section('once'));
  t.is(await ask(second, 'one'), 'echo: one');
  t.is(await ask(second, 'two'), '502 replay_miss', 'once: a cassette with recordings replays only');
  await second.stop({ keepDir: true });
  t.is(up.received.length, 2, 'nothing reached the upstream');

  const third = await gatewayIn(t, dir, 'new', section('new'));
  t.is(await ask(third, 'one'), 'echo: one');
  t.is(up.received.length, 2, 'a recorded request is replayed');
  t.is(await ask(third, 'two'), 'echo: two');
  t.is(up.received.length, 3, 'a new one goes to the upstream');
  // the real upstream's key lives in [providers.chat.upstream]: redacted from what it echoes all the same
  const leaked = await ask(third, 'leak');
  t.is(leaked, '502 upstream_auth_failed');
  const leakedMessage = await new OpenAI({ baseURL: third.baseURL, apiKey: KEY, maxRetries: 0 }).chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: 'leak' }] })
    .then(
      () => '',
      (e) => String(e.message),
    );
  t.regex(leakedMessage, /Incorrect API key provided: \[redacted\]/);
  await third.stop({ keepDir: true });
  const appended = readFileSync(cassette, 'utf8');
  t.is(appended.trim().split('\n').length, 5, 'and is appended (the two refusals too)');
  t.false(appended.includes(UPSTREAM_KEY));
});

test('speed = 1 replays a stream at its recorded pace; speed = 0 as fast as it can', async (t) => {
  const dir = await tempDir(t);
  const cassette = join(dir, 'paced.jsonl');
  const GAP_MS = 80;
  const chunks = ['one ', 'two ', 'three ', 'four'].map((content) => ({
    id: 'p',
    object: 'chat.completion.chunk',
    created: 1,
    model: MODEL,
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  }));
  const up = await startUpstream((_r, res) => replySse(res, toSse(chunks), { delayMs: GAP_MS }));
  const live = await gatewayIn(t, dir, 'live', `${liveSection(up.origin)}\n[extensions.recorder]\npath = "${cassette}"\n`);
  const body = { model: MODEL, messages: [{ role: 'user', content: 'count' }], stream: true };
  const timed = async (gw: TestGateway) => {
    const t0 = performance.now();
    const res = await fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { ms: performance.now() - t0, text: text.replace(/"created":\d+/g, '') };
  };
  const recorded = await timed(live);
  await live.stop({ keepDir: true });
  await up.close();
  const paced = await gatewayIn(t, dir, 'paced', `[providers.agent]\nkind = "replay"\ncassette = "${cassette}"\nspeed = 1\n`);
  const fast = await gatewayIn(t, dir, 'fast', `[providers.agent]\nkind = "replay"\ncassette = "${cassette}"\n`);
  const slow = await timed(paced);
  const quick = await timed(fast);
  t.is(slow.text, recorded.text);
  t.is(quick.text, recorded.text);
  // four events 80 ms apart (and the [DONE] after the last): at least three gaps at the recorded pace
  t.true(slow.ms >= 3 * GAP_MS * 0.9, `speed 1 took ${slow.ms} ms`);
  t.true(quick.ms < slow.ms - GAP_MS, `speed 0 took ${quick.ms} ms, speed 1 ${slow.ms} ms`);
});

test('gw cassette show lists the recordings, redact scrubs a secret it is given, replay check lists what nothing asked for', async (t) => {
  const dir = await tempDir(t);
  const cassette = join(dir, 'tools.jsonl');
  const up = await startUpstream((r, res) =>
    replyJson(res, 200, {
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: `you said ${r.json.messages[0].content}` }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    }),
  );
  const live = await gatewayIn(
    t,
    dir,
    'live',
    `${liveSection(up.origin)}\n[pricing."${MODEL}"]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n[extensions.recorder]\npath = "${cassette}"\n`,
  );
  const client = new OpenAI({ baseURL: live.baseURL, apiKey: KEY, maxRetries: 0 });
  for (const word of ['alpha', 'beta', 'internal-codename-zebra'])
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: word }] });
  await live.stop({ keepDir: true });
  await up.close();

  const shown = await runCli(['cassette', 'show', cassette]);
  t.is(shown.code, 0, shown.stderr);
  const rows = shown.stdout.trim().split('\n');
  t.regex(rows[0]!, /^LINE\s+AGE\s+PROVIDER\s+ROUTE\s+MODEL\s+ANSWER\s+TOKENS\s+COST_USD$/);
  t.is(rows.length, 4);
  t.regex(rows[1]!, /^\s*1\s+\d+s\s+agent\s+POST \/v1\/chat\/completions\s+agent-model\s+200\s+7\+3\s+0\.000013$/);
  t.regex(shown.stderr, /3 recordings: 21\+9 tokens, 0\.000039 USD when recorded/);

  t.true(readFileSync(cassette, 'utf8').includes('internal-codename-zebra'));
  const redacted = await runCli(['cassette', 'redact', cassette, '--secret', 'internal-codename-zebra']);
  t.is(redacted.code, 0, redacted.stderr);
  t.regex(redacted.stderr, /1 of 3 lines changed/);
  const after = readFileSync(cassette, 'utf8');
  t.false(after.includes('internal-codename-zebra'));
  const third = JSON.parse(after.trim().split('\n')[2]!);
  t.is(third.request.body.messages[0].content, '[redacted]');

  // a replay run that asks for two of the three
  const configDir = join(dir, 'replay');
  const replay = await gatewayIn(t, dir, 'replay', `[providers.agent]\nkind = "replay"\ncassette = "${cassette}"\n`);
  const again = new OpenAI({ baseURL: replay.baseURL, apiKey: KEY, maxRetries: 0 });
  for (const word of ['alpha', '[redacted]'])
    t.regex((await again.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: word }] })).choices[0]!.message.content!, /^you said /);
  await replay.stop({ keepDir: true });
  const checked = await runCli(['replay', 'check', cassette, '--config', join(configDir, 'gateway.toml')]);
  t.is(checked.code, 1, checked.stderr);
  const unused = checked.stdout.trim().split('\n');
  t.is(unused.length, 2);
  t.regex(unused[1]!, /tools\.jsonl\s+2\s+\d+s\s+agent\s+POST \/v1\/chat\/completions\s+agent-model/);
  t.regex(checked.stderr, /1 of 3 recordings were not asked for in the last run of agent/);

  // a cassette line cut by a crash is ignored and reported, the rest still shown
  writeFileSync(cassette, `${after}{"v":1,"id":"e-cut`);
  const cut = await runCli(['cassette', 'show', cassette]);
  t.is(cut.code, 0);
  t.is(cut.stdout.trim().split('\n').length, 4);
  t.regex(cut.stderr, /last line was cut short/);
});

test('a replay provider whose cassette is missing stops gw with one line naming the setting; a miss in the config is no stack', async (t) => {
  const dir = await tempDir(t);
  const config = join(dir, 'gateway.toml');
  writeFileSync(config, baseConfig(`[providers.agent]\nkind = "replay"\ncassette = "cassettes/none.jsonl"\n`));
  const r = await runCli(['serve', '--config', config, '--bind', '127.0.0.1:0']);
  t.is(r.code, 1);
  t.regex(r.stderr.trim(), /^gw: providers\.agent\.cassette: cannot read cassette .*cassettes\/none\.jsonl: ENOENT$/);
});
