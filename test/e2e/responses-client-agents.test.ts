/**
 * @openai/agents with its default model (OpenAIResponsesModel, POST /v1/responses) against a
 * local Responses mock (test/helpers/responses-mock.ts): no gateway. Set-up: an OpenAI client
 * with the mock's baseURL and a key, an OpenAIProvider over it (`useResponses` left at its
 * default, which is the Responses API), a Runner with `tracingDisabled: true` (nothing is
 * exported to OpenAI's trace endpoint), one function tool with a plain JSON Schema.
 */
import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';
import test from 'ava';
import OpenAI from 'openai';
import { startResponsesMock } from '../helpers/responses-mock.ts';

test('an agent runs one tool through its default Responses model', async (t) => {
  const mock = await startResponsesMock((req) =>
    JSON.stringify(req.json.input).includes('function_call_output')
      ? { text: 'Paris: 18C.' }
      : { calls: [{ name: 'get_weather', arguments: '{"city":"Paris"}', id: 'call_agents_1' }] },
  );
  try {
    const calls: string[] = [];
    const getWeather = tool({
      name: 'get_weather',
      description: 'Weather in a city',
      strict: false,
      parameters: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: true as const },
      execute: async (input) => {
        calls.push(JSON.stringify(input));
        return '18C';
      },
    });
    const provider = new OpenAIProvider({ openAIClient: new OpenAI({ apiKey: 'sk-agents-test', baseURL: mock.baseURL, maxRetries: 0 }) });
    const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
    const agent = new Agent({ name: 'weather', instructions: 'Use the tool.', model: 'test-model', tools: [getWeather] });
    const result = await runner.run(agent, 'Weather in Paris?');

    t.is(result.finalOutput, 'Paris: 18C.');
    t.deepEqual(calls, ['{"city":"Paris"}']);
    t.is(mock.received.length, 2);
    t.true(mock.received.every((r) => r.url === '/v1/responses' && r.headers.authorization === 'Bearer sk-agents-test'));
    t.is(mock.received[0].json.instructions, 'Use the tool.');
    const output = (mock.received[1].json.input as Array<Record<string, unknown>>).find((i) => i.type === 'function_call_output');
    t.like(output, { call_id: 'call_agents_1', output: '18C' });
    t.is(mock.translated[1].req.messages.at(-1)?.role, 'tool');
  } finally {
    await mock.close();
  }
});
