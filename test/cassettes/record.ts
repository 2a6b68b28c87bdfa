/**
 * Records the docs' example cassettes (docs/record-replay.md), as a project would once against
 * the real vendor — here against local upstreams answering with recorded payloads:
 * - `openai-suite.jsonl`: the OpenAI SDK suite of suite.ts (test/fixtures/openai payloads);
 * - `claude-code.jsonl`: a Claude Code session (`claude -p`) that runs one Bash tool turn
 *   (`cat notes.txt`) and answers from it, on an anthropic provider.
 * Run from the repository root: `npx node --conditions=gw-source test/cassettes/record.ts`.
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { claudeCodeNotesSession, claudeCodeTurn } from '../helpers/record-replay.ts';
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

const anthropic = await startUpstream((r, res) => claudeCodeTurn(res, JSON.stringify(r.json.messages).includes('tool_result')));
await record(
  here('claude-code.jsonl'),
  `[providers.anthropic]\napi_key = "sk-ant-the-real-vendor-key-never-recorded"\nbase_url = "${anthropic.origin}"\nmodels = ["claude-sonnet-4-6"]\n`,
  async (gw) => (await claudeCodeNotesSession(gw.url)).stdout,
);
await anthropic.close();
