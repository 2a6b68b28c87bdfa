/**
 * Records the docs' example cassettes (docs/record-replay.md), as a project would once against
 * the real vendor — here against local upstreams answering with recorded payloads:
 * - `openai-suite.jsonl`: the OpenAI SDK suite of suite.ts (test/fixtures/openai payloads);
 * - `claude-code.jsonl`: a Claude Code session (`claude -p`) that runs one Bash tool turn
 *   (`cat notes.txt`) and answers from it, on an anthropic provider.
 * Run from the repository root: `npx node --conditions=gw-source test/cassettes/record.ts`.
 */
import { rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { runClaudeCode } from '../helpers/claude-code.ts';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, replyJson, replySse, startUpstream } from '../helpers/upstream.ts';
import { runSuite } from './suite.ts';

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

/** A gateway with one provider section and the recorder writing `cassette`, for the time `run` takes. */
async function record(cassette: string, provider: string, run: (gw: { url: string; baseURL: string }) => Promise<unknown>): Promise<void> {
  rmSync(cassette, { force: true });
  const gw = await startGateway(baseConfig(`${provider}\n[extensions.recorder]\npath = "${cassette}"\n`));
  try {
    console.log(await run(gw));
  } finally {
    await gw.stop();
  }
}

const openai = await startUpstream((r, res) => {
  if (r.json.stream) return replySse(res, fixture('openai/openai-node/chat.stream.include-usage.sse'));
  if (String(r.json.messages.at(-1).content).includes('Boston')) return replyJson(res, 200, fixture('openai/spec-examples/chat.functions.response.json'));
  return replyJson(res, 200, fixture('openai/spec-examples/chat.default.response.json'));
});
await record(
  here('openai-suite.jsonl'),
  `[providers.openai]\napi_key = "sk-the-real-vendor-key-never-recorded"\nbase_url = "${openai.origin}/v1"\nmodels = ["gpt-4o-mini"]\n`,
  (gw) => runSuite(gw.baseURL, KEY),
);
await openai.close();

const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
/** A Messages stream: a Bash call reading notes.txt, or the answer once its result came back. */
function claudeTurn(res: ServerResponse, answered: boolean): void {
  const usage = { input_tokens: 2150, output_tokens: 1 };
  let sse = event('message_start', {
    message: {
      id: `msg_${answered ? 2 : 1}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  sse += event('content_block_start', {
    index: 0,
    content_block: answered ? { type: 'text', text: '' } : { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: {} },
  });
  sse += event('content_block_delta', {
    index: 0,
    delta: answered
      ? { type: 'text_delta', text: 'The note says: remember the milk.' }
      : { type: 'input_json_delta', partial_json: '{"command": "cat notes.txt", "description": "Read the note"}' },
  });
  sse += event('content_block_stop', { index: 0 });
  sse += event('message_delta', { delta: { stop_reason: answered ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 14 } });
  sse += event('message_stop', {});
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(sse);
}
const anthropic = await startUpstream((r, res) => claudeTurn(res, JSON.stringify(r.json.messages).includes('tool_result')));
await record(
  here('claude-code.jsonl'),
  `[providers.anthropic]\napi_key = "sk-ant-the-real-vendor-key-never-recorded"\nbase_url = "${anthropic.origin}"\nmodels = ["claude-sonnet-4-6"]\n`,
  async (gw) =>
    (
      await runClaudeCode({
        baseUrl: gw.url,
        apiKey: KEY,
        model: 'claude-sonnet-4-6',
        prompt: 'What does notes.txt say?',
        files: { 'notes.txt': 'remember the milk\n' },
        args: ['--output-format', 'json', '--allowedTools', 'Bash(cat:*)'],
      })
    ).stdout,
);
await anthropic.close();
