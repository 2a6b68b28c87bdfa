/**
 * The AI SDK's default OpenAI model (`openai(id)` from @ai-sdk/openai is the Responses API)
 * with `generateText` and one tool, against a local Responses mock
 * (test/helpers/responses-mock.ts): no gateway. Set-up: `createOpenAI({ baseURL, apiKey })`,
 * `stopWhen: stepCountIs(2)` so the tool result goes back for a final answer; the same with
 * `streamText`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText } from 'ai';
import test from 'ava';
import { weatherTool } from '../helpers/ai-sdk.ts';
import { startResponsesMock } from '../helpers/responses-mock.ts';

const script = (req: { json: any }) =>
  JSON.stringify(req.json.input).includes('function_call_output')
    ? { text: 'Paris: 18C.' }
    : { calls: [{ name: 'get_weather', arguments: '{"city":"Paris"}', id: 'call_ai_1' }] };

for (const mode of ['generateText', 'streamText'] as const) {
  test(`${mode}: one tool round trip through openai(id)`, async (t) => {
    const mock = await startResponsesMock(script);
    try {
      const openai = createOpenAI({ baseURL: mock.baseURL, apiKey: 'sk-ai-sdk-test' });
      const calls: string[] = [];
      const args = {
        model: openai('test-model'),
        prompt: 'Weather in Paris?',
        tools: { get_weather: weatherTool(calls) },
        stopWhen: stepCountIs(2),
        maxRetries: 0,
      };
      const text = mode === 'generateText' ? (await generateText(args)).text : await streamText(args).text;
      t.is(text, 'Paris: 18C.');
      t.deepEqual(calls, ['{"city":"Paris"}']);
      t.is(mock.received.length, 2);
      t.true(mock.received.every((r) => r.url === '/v1/responses' && r.headers.authorization === 'Bearer sk-ai-sdk-test'));
      t.is(Boolean(mock.received[0].json.stream), mode === 'streamText');
      const output = (mock.received[1].json.input as Array<Record<string, unknown>>).find((i) => i.type === 'function_call_output');
      t.is(output?.call_id, 'call_ai_1');
      t.regex(JSON.stringify(output?.output), /18C/);
    } finally {
      await mock.close();
    }
  });
}
