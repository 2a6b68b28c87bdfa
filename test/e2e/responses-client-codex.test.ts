/**
 * Codex CLI 0.169 (`codex exec`, the real native binary) against a local Responses mock
 * (test/helpers/responses-mock.ts): no gateway. Proves the run set-up of test/helpers/codex.ts
 * (offline, unattended) and that the events the Responses translators produce are enough
 * for Codex to finish a turn, run one tool and send its output back; and that the README's
 * `codex exec` line works outside a git repository.
 */
import test from 'ava';
import { runCodex } from '../helpers/codex.ts';
import { startResponsesMock } from '../helpers/responses-mock.ts';

const KEY = 'sk-codex-test-key';

test("the README's codex exec line runs outside a git repository (the run's folder is a fresh temp dir)", async (t) => {
  const mock = await startResponsesMock(() => ({ text: 'hello from gw' }));
  try {
    const run = await runCodex({ baseURL: mock.baseURL, apiKey: KEY, prompt: 'Say hello.', asReadme: true });
    t.notRegex(run.stderr, /Not inside a trusted directory/);
    t.is(run.exitCode, 0, run.stderr);
    t.is(run.stdout.trim(), 'hello from gw');
  } finally {
    await mock.close();
  }
});

test('one tool-using turn: Codex runs exec_command and sends the function_call_output back', async (t) => {
  const mock = await startResponsesMock((req) =>
    JSON.stringify(req.json.input).includes('function_call_output')
      ? { text: 'The command printed gw-codex-ok.' }
      : {
          reasoning: 'I should run the command.',
          calls: [{ name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo gw-codex-ok' }), id: 'toolu_codex_1' }],
        },
  );
  try {
    const run = await runCodex({ baseURL: mock.baseURL, apiKey: KEY, prompt: 'Run echo gw-codex-ok and tell me what it printed.' });
    t.false(run.timedOut);
    t.is(run.exitCode, 0, run.stderr);
    t.is(run.stdout.trim(), 'The command printed gw-codex-ok.');
    t.regex(run.stderr, /echo gw-codex-ok/);

    t.is(mock.received.length, 2);
    const [first, second] = mock.received;
    t.is(first.url, '/v1/responses');
    t.is(first.headers.authorization, `Bearer ${KEY}`);
    t.is(first.headers.accept, 'text/event-stream');
    t.true(first.json.stream);
    t.deepEqual(
      first.json.tools.map((tool: { type: string }) => tool.type).filter((type: string) => type !== 'function'),
      ['namespace', 'web_search'],
    );
    t.deepEqual(mock.translated[0].droppedTools, ['web_search']);

    // the second turn carries the call (as the mock's translator emitted it) and the command's output
    const items = second.json.input as Array<Record<string, any>>;
    const call = items.find((i) => i.type === 'function_call');
    const output = items.find((i) => i.type === 'function_call_output');
    t.like(call, { call_id: 'toolu_codex_1', name: 'exec_command' });
    t.is(output?.call_id, 'toolu_codex_1');
    t.regex(String(output?.output), /gw-codex-ok/);
    // Codex sends the reasoning item back with its reasoning_text: it reaches the upstream as reasoning_content
    t.true(items.some((i) => i.type === 'reasoning' && i.content?.[0]?.text === 'I should run the command.'));
    const assistant = mock.translated[1].req.messages.find((m) => m.role === 'assistant');
    t.is(assistant?.reasoning_content, 'I should run the command.');
    t.is(mock.translated[1].req.messages.at(-1)?.role, 'tool');
  } finally {
    await mock.close();
  }
});

test('a namespaced call: the flat name the upstream used is restored to {namespace, name} and Codex dispatches it', async (t) => {
  const mock = await startResponsesMock((req) =>
    JSON.stringify(req.json.input).includes('function_call_output')
      ? { text: 'closed' }
      : { calls: [{ name: 'multi_agent_v1__close_agent', arguments: '{"target":"no-such-agent"}', id: 'toolu_ns_1' }] },
  );
  try {
    const run = await runCodex({ baseURL: mock.baseURL, apiKey: KEY, prompt: 'close the agent' });
    t.is(run.exitCode, 0, run.stderr);
    const items = mock.received[1].json.input as Array<Record<string, any>>;
    t.like(
      items.find((i) => i.type === 'function_call'),
      { call_id: 'toolu_ns_1', namespace: 'multi_agent_v1', name: 'close_agent' },
    );
    // Codex's own close_agent handler answered (it rejects the made-up agent id): the call reached the namespaced tool
    t.regex(String(items.find((i) => i.type === 'function_call_output')?.output), /invalid agent id no-such-agent/);
    // and the history goes back upstream under the flat name again
    const assistant = mock.translated[1].req.messages.find((m) => m.role === 'assistant');
    t.is(assistant?.tool_calls?.[0].function.name, 'multi_agent_v1__close_agent');
  } finally {
    await mock.close();
  }
});

test('response.failed after the first events ends the run non-zero with the failure message', async (t) => {
  const mock = await startResponsesMock(() => ({ text: 'half', failAfterStart: 'upstream connection reset by peer' }));
  try {
    const run = await runCodex({ baseURL: mock.baseURL, apiKey: KEY, prompt: 'hi' });
    t.false(run.timedOut);
    t.not(run.exitCode, 0);
    t.regex(run.stderr, /upstream connection reset by peer/);
    t.is(mock.received.length, 1, 'no retry (stream_max_retries = 0)');
  } finally {
    await mock.close();
  }
});
