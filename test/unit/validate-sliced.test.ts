/**
 * lib/validate-sliced.ts: a large body validated a slice at a time gives the answer one zod
 * parse gives (the same 400, naming the same field), while taking turns of the event loop
 * between slices of its long arrays.
 */
import test from 'ava';
import { validate } from '../../lib/schemas.ts';
import { validateInSlices } from '../../lib/validate-sliced.ts';
import { messagesRequestSchema } from '../../protocols/anthropic-messages/schema.ts';
import { generateContentRequestSchema } from '../../protocols/gemini/schemas.ts';
import { chatRequestSchema } from '../../protocols/openai-chat/schema.ts';
import { responsesRequestSchema } from '../../protocols/openai-responses/schema.ts';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Both validations of `body`: their 400s (message and param) must be the same; returns it, and the turns taken. */
async function both(t: import('ava').ExecutionContext, schema: Parameters<typeof validate>[0], body: unknown) {
  let turns = 0;
  const sliced = await validateInSlices(schema, body, async () => {
    turns++;
  });
  const whole = validate(schema, body);
  t.deepEqual(sliced && { message: sliced.message, param: sliced.param }, whole && { message: whole.message, param: whole.param });
  return { error: sliced, turns };
}

test('a valid body of 32,000 messages: no error, and turns of the loop between slices', async (t) => {
  const { error, turns } = await both(t, chatRequestSchema, { model: 'm', messages: range(32_000).map((i) => ({ role: 'user', content: `turn ${i}` })) });
  t.is(error, undefined);
  t.true(turns >= 7, `${turns} turns`);
});

test('a bad message deep in a long list is named as one parse names it', async (t) => {
  const messages: unknown[] = range(10_000).map(() => ({ role: 'user', content: 'x' }));
  messages[7_321] = { role: '', content: 'x' };
  const { error } = await both(t, chatRequestSchema, { model: 'm', messages });
  t.is(error?.param, 'messages[7321].role');
});

test('a bad part deep in a long content array of one message is named as one parse names it', async (t) => {
  const content: unknown[] = range(20_000).map(() => ({ type: 'text', text: 'a' }));
  content[19_999] = { text: 'no type' };
  const { error } = await both(t, messagesRequestSchema, { model: 'm', max_tokens: 5, messages: [{ role: 'user', content }] });
  t.is(error?.param, 'messages[0].content[19999].type');
});

test('over the cap: the same 400, naming the field and the cap', async (t) => {
  const { error } = await both(t, chatRequestSchema, { model: 'm', messages: range(120_001).map(() => ({ role: 'user' })) });
  t.is(error?.param, 'messages');
  t.regex(error!.message, /messages: at most 120000 messages per request/);
});

test('a long array inside a union (Responses input, Gemini contents) is checked too', async (t) => {
  const input: unknown[] = range(5_000).map(() => ({ type: 'message', role: 'user', content: 'x' }));
  input[4_000] = { type: 7 };
  t.is((await both(t, responsesRequestSchema, { model: 'm', input })).error?.param, 'input[4000].type');
  const contents: unknown[] = range(5_000).map(() => ({ role: 'user', parts: [{ text: 'x' }] }));
  contents[2_500] = { role: 'user', parts: 'x' };
  t.is((await both(t, generateContentRequestSchema, { contents })).error?.param, 'contents[2500].parts');
});

test('a problem outside the long arrays is found, and before their items are checked', async (t) => {
  let turns = 0;
  const error = await validateInSlices(chatRequestSchema, { model: '', messages: range(50_000).map(() => ({ role: 'user' })) }, async () => {
    turns++;
  });
  t.is(error?.param, 'model');
  t.is(turns, 0);
});
