/**
 * The docs' worked example (docs/record-replay.md): a small OpenAI SDK test suite — a chat
 * completion, a stream with usage, a tool call — that a project records once through gw and
 * replays in CI with no upstream and no vendor key. `record.ts` records it into
 * `openai-suite.jsonl` (committed); test/e2e/record-replay-docs.test.ts runs it against
 * `gw serve` with the page's CI config.
 */
import OpenAI from 'openai';

/** What the suite checks of each answer. */
export interface SuiteResult {
  greeting: string;
  streamed: string;
  streamUsage: unknown;
  toolCall: { name: string; arguments: string } | undefined;
}

/** The suite's three calls, on the `gpt-4o-mini` model of the gateway at `baseURL` (`…/v1`). */
export async function runSuite(baseURL: string, apiKey: string): Promise<SuiteResult> {
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  const greeting = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }] });
  const stream = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Describe the weather as JSON.' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let streamed = '';
  let streamUsage: unknown;
  for await (const chunk of stream) {
    streamed += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) streamUsage = chunk.usage;
  }
  const tool = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'What is the weather in Boston?' }],
    tools: [{ type: 'function', function: { name: 'get_current_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }],
  });
  const call = tool.choices[0]!.message.tool_calls?.[0] as { function: { name: string; arguments: string } } | undefined;
  return {
    greeting: greeting.choices[0]!.message.content ?? '',
    streamed,
    streamUsage,
    toolCall: call && { name: call.function.name, arguments: call.function.arguments },
  };
}
