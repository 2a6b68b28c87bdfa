/**
 * Real Responses clients through gw, on translated kinds: Codex CLI (`codex exec`, the
 * native binary from @openai/codex) completing one tool-using turn on a model served by a
 * chat-completions mock and on one served by a Messages mock; @openai/agents with its
 * default (Responses) model running one tool; the AI SDK's default `openai(id)` model, whose
 * `store: true` history comes back as item references gw resolves from its store.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { Agent, OpenAIProvider, Runner, tool as agentTool } from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { weatherTool } from '../helpers/ai-sdk.ts';
import test from 'ava';
import OpenAI from 'openai';
import { runCodex } from '../helpers/codex.ts';
import { admin } from '../helpers/ext-helpers.ts';
import { KEY, replyChat, replyMessages, rig, type Scripted } from './responses-helpers.ts';

/** The exec_command call Codex runs, then the answer once its output came back. */
function codexTurn(lastIsToolOutput: boolean, id: string): Scripted {
  return lastIsToolOutput
    ? { text: 'The command printed gw-codex-ok.' }
    : { text: 'Running it.', calls: [{ id, name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo gw-codex-ok' }) }] };
}

for (const kind of ['compat', 'anthropic'] as const) {
  const format = kind === 'compat' ? 'an OpenAI-chat' : 'an Anthropic Messages';
  test(`Codex CLI: codex exec completes one tool-using turn through gw on ${format}-format upstream`, async (t) => {
    const model = kind === 'compat' ? 'qwen3-coder' : 'claude-sonnet-4-5';
    const { up, gw } = await rig(
      t,
      kind,
      model,
      (req, res) => {
        if (kind === 'compat') {
          const last = req.json.messages.at(-1);
          return replyChat(res, req.json.stream === true, codexTurn(last.role === 'tool', 'call_codex_1'));
        }
        const last = req.json.messages.at(-1);
        replyMessages(
          res,
          req.json.stream === true,
          codexTurn(Array.isArray(last.content) && last.content.some((b: any) => b.type === 'tool_result'), 'toolu_codex_1'),
        );
      },
      '[extensions.usage]\n',
      { level: 'info' },
    );
    const run = await runCodex({ baseURL: gw.baseURL, apiKey: KEY, model, prompt: 'Run echo gw-codex-ok and tell me what it printed.' });
    t.false(run.timedOut);
    t.is(run.exitCode, 0, run.stderr);
    t.is(run.stdout.trim(), 'The command printed gw-codex-ok.');
    t.regex(run.stderr, /echo gw-codex-ok/);

    t.is(up.received.length, 2);
    const second = up.received[1]!.json;
    if (kind === 'compat') {
      t.is(up.received[0]!.url, '/v1/chat/completions');
      t.true(second.tools.some((x: any) => x.function.name === 'exec_command'));
      t.false(
        second.tools.some((x: any) => x.type !== 'function'),
        'web_search dropped',
      );
      const tm = second.messages.find((m: any) => m.role === 'tool');
      t.is(tm.tool_call_id, 'call_codex_1');
      t.regex(tm.content, /gw-codex-ok/);
      t.is(second.messages[0].role, 'system', 'instructions and developer messages → system');
    } else {
      t.is(up.received[0]!.url, '/v1/messages');
      t.truthy(second.system);
      const result = second.messages.at(-1).content.find((b: any) => b.type === 'tool_result');
      t.is(result.tool_use_id, 'toolu_codex_1');
      t.regex(JSON.stringify(result.content), /gw-codex-ok/);
    }
    // the log keeps how many were dropped, not the client's labels (log-safe errors); the header names them
    t.true(gw.logs.some((l) => l.includes('built-in tools dropped') && l.includes('"dropped":1')));
    const usage = (await admin(gw, 'GET', '/v1/usage')).body.find((u: any) => u.model === model);
    t.like(usage, { requests: 2, prompt_tokens: 42, completion_tokens: 18 });
  });
}

test('@openai/agents: its default Responses model runs one tool through gw (anthropic kind)', async (t) => {
  const { up, gw } = await rig(t, 'anthropic', 'claude-sonnet-4-5', (req, res) => {
    const last = req.json.messages.at(-1);
    const done = Array.isArray(last.content) && last.content.some((b: any) => b.type === 'tool_result');
    replyMessages(
      res,
      req.json.stream === true,
      done ? { text: 'Paris: 18C.' } : { calls: [{ id: 'toolu_agents_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    );
  });
  const calls: string[] = [];
  const getWeather = agentTool({
    name: 'get_weather',
    description: 'Weather in a city',
    strict: false,
    parameters: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: true as const },
    execute: async (input) => {
      calls.push(JSON.stringify(input));
      return '18C';
    },
  });
  const provider = new OpenAIProvider({ openAIClient: new OpenAI({ apiKey: KEY, baseURL: gw.baseURL, maxRetries: 0 }) });
  const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
  const agent = new Agent({ name: 'weather', instructions: 'Use the tool.', model: 'claude-sonnet-4-5', tools: [getWeather] });
  const result = await runner.run(agent, 'Weather in Paris?');
  t.is(result.finalOutput, 'Paris: 18C.');
  t.deepEqual(calls, ['{"city":"Paris"}']);
  t.is(up.received.length, 2);
  t.is(up.received[0]!.json.system, 'Use the tool.');
  t.like(up.received[1]!.json.messages.at(-1).content[0], { type: 'tool_result', tool_use_id: 'toolu_agents_1', content: '18C' });
});

test("the AI SDK's openai(id): text and a tool call in one step, sent back as item references gw resolves from its store", async (t) => {
  const { up, gw } = await rig(t, 'anthropic', 'claude-sonnet-4-5', (req, res) => {
    const last = req.json.messages.at(-1);
    const done = Array.isArray(last.content) && last.content.some((b: any) => b.type === 'tool_result');
    replyMessages(
      res,
      req.json.stream === true,
      done ? { text: 'Paris: 18C.' } : { text: 'Let me check.', calls: [{ id: 'toolu_ai_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    );
  });
  // capture what the SDK sends gw
  const sent: any[] = [];
  const openai = createOpenAI({
    baseURL: gw.baseURL,
    apiKey: KEY,
    fetch: async (url, init) => {
      sent.push(JSON.parse(String(init?.body)));
      return fetch(url, init);
    },
  });
  const calls: string[] = [];
  const result = await generateText({
    model: openai('claude-sonnet-4-5'),
    prompt: 'Weather in Paris?',
    tools: { get_weather: weatherTool(calls) },
    stopWhen: stepCountIs(2),
    maxRetries: 0,
  });
  t.is(result.text, 'Paris: 18C.');
  t.deepEqual(calls, ['{"city":"Paris"}']);
  t.true(
    sent[1].input.some((i: any) => i.type === 'item_reference'),
    'the SDK referenced the stored message',
  );
  const second = up.received[1]!.json.messages;
  t.deepEqual(
    second.map((m: any) => m.role),
    ['user', 'assistant', 'user'],
  );
  t.like(second[1].content[0], { type: 'text', text: 'Let me check.' });
  t.like(second[1].content[1], { type: 'tool_use', id: 'toolu_ai_1', name: 'get_weather' });
});
