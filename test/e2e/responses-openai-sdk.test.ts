/**
 * The official openai SDK parses what the Responses translators produce: its own stream
 * accumulator (strict about item ids, indexes and order) and its `output_text` helper, over
 * a real socket (test/helpers/responses-mock.ts; no gateway involved).
 */
import test from 'ava';
import OpenAI from 'openai';
import { type ResponsesMock, startResponsesMock } from '../helpers/responses-mock.ts';

const tools = [
  {
    type: 'function' as const,
    name: 'get_weather',
    description: 'Weather in a city',
    strict: false,
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

async function withMock(script: Parameters<typeof startResponsesMock>[0], fn: (client: OpenAI, mock: ResponsesMock) => Promise<void>): Promise<void> {
  const mock = await startResponsesMock(script);
  try {
    await fn(new OpenAI({ apiKey: 'sk-test', baseURL: mock.baseURL, maxRetries: 0 }), mock);
  } finally {
    await mock.close();
  }
}

test('responses.create: text answer, output_text, usage', async (t) => {
  await withMock(
    () => ({ text: 'Hello from a translated model.' }),
    async (client) => {
      const res = await client.responses.create({ model: 'any-model', input: 'hi', instructions: 'be nice' });
      t.is(res.output_text, 'Hello from a translated model.');
      t.is(res.status, 'completed');
      t.is(res.model, 'any-model');
      t.is(res.instructions, 'be nice');
      t.deepEqual(res.usage, {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 15,
      });
    },
  );
});

test('responses.stream with a function tool, then the function_call_output round trip', async (t) => {
  await withMock(
    (req) => {
      return JSON.stringify(req.json.input).includes('function_call_output')
        ? { text: 'It is 18C in Paris.' }
        : { reasoning: 'need the weather', calls: [{ name: 'get_weather', arguments: '{"city":"Paris"}', id: 'call_upstream_1' }] };
    },
    async (client, mock) => {
      const stream = client.responses.stream({ model: 'm', input: 'weather in Paris?', tools });
      const deltas: string[] = [];
      stream.on('response.function_call_arguments.delta', (e) => deltas.push(e.delta));
      const first = await stream.finalResponse();
      t.deepEqual(
        first.output.map((o) => o.type),
        ['reasoning', 'function_call'],
      );
      const call = first.output[1];
      if (call.type !== 'function_call') return t.fail();
      t.is(call.call_id, 'call_upstream_1');
      t.is(call.name, 'get_weather');
      t.is(call.arguments, '{"city":"Paris"}');
      t.is(deltas.join(''), '{"city":"Paris"}');

      const second = await client.responses
        .stream({
          model: 'm',
          tools,
          input: [
            { role: 'user', content: 'weather in Paris?' },
            ...(first.output as OpenAI.Responses.ResponseInputItem[]),
            { type: 'function_call_output', call_id: call.call_id, output: '18C' },
          ],
        })
        .finalResponse();
      t.is(second.output_text, 'It is 18C in Paris.');
      t.is(second.status, 'completed');
      // what a chat upstream would have received for the second turn
      t.deepEqual(mock.translated[1].req.messages.slice(1), [
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'need the weather',
          tool_calls: [{ id: 'call_upstream_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_upstream_1', content: '18C' },
      ]);
    },
  );
});

test('a truncated answer: the SDK sees response.incomplete with max_output_tokens', async (t) => {
  await withMock(
    () => ({ text: 'partial', finish: 'length' }),
    async (client) => {
      const res = await client.responses.stream({ model: 'm', input: 'long story', max_output_tokens: 5 }).finalResponse();
      t.is(res.status, 'incomplete');
      t.deepEqual(res.incomplete_details, { reason: 'max_output_tokens' });
      t.is(res.output_text, 'partial');
    },
  );
});

test('a failure after the first byte: the SDK throws an APIError carrying the message', async (t) => {
  await withMock(
    () => ({ text: 'half an answer', failAfterStart: 'upstream connection reset' }),
    async (client) => {
      const err = await t.throwsAsync(client.responses.stream({ model: 'm', input: 'x' }).finalResponse(), { instanceOf: OpenAI.APIError });
      t.regex(err!.message, /upstream connection reset/);
    },
  );
});

test('a translator 400 reaches the SDK as BadRequestError naming the field', async (t) => {
  await withMock(
    () => ({ text: 'unused' }),
    async (client) => {
      const err = await t.throwsAsync(
        client.responses.create({ model: 'm', input: 'x', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search_preview' } }),
        { instanceOf: OpenAI.BadRequestError },
      );
      t.regex(err!.message, /tool_choice/);
    },
  );
});
