/**
 * The Vercel AI SDK's side of tests: the one tool the AI SDK tests call (`get_weather`, which
 * answers 18C and notes each input it ran with).
 */
import { jsonSchema, tool } from 'ai';

/** `get_weather(city)`: answers '18C'; every input it ran with is pushed to `calls` as JSON. */
export function weatherTool(calls: string[]) {
  return tool({
    description: 'Weather in a city',
    inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }),
    execute: async (input) => {
      calls.push(JSON.stringify(input));
      return '18C';
    },
  });
}
