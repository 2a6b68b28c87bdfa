/**
 * The item caps of every client format's request schema (lib/common/limits.ts):
 * at the cap a body passes, one past it is a 400 naming the field and the cap.
 */
import test from 'ava';
import type { z } from 'zod';
import { validate } from '../../lib/schemas.ts';
import { validateInSlices } from '../../lib/validate-sliced.ts';
import { validateRequest } from '../../lib/validate-compiled.ts';
import { countTokensRequestSchema as messagesCountSchema, messagesRequestSchema } from '../../protocols/anthropic-messages/schema.ts';
import { batchEmbedContentsRequestSchema, countTokensRequestSchema, generateContentRequestSchema } from '../../protocols/gemini/schemas.ts';
import { MAX_EMBEDDING_INPUTS, MAX_TOOLS, MAX_TURNS } from '../../lib/common/limits.ts';
import { chatRequestSchema, embeddingsRequestSchema } from '../../protocols/openai-chat/schema.ts';
import { responsesRequestSchema } from '../../protocols/openai-responses/schema.ts';

const times = <T>(n: number, item: T): T[] => Array.from({ length: n }, () => item);

/** A body with `n` items where the cap applies. */
type At = (n: number) => unknown;

const cases: Array<{ name: string; schema: z.ZodType; at: At; max: number; param: string; message: RegExp }> = [
  {
    name: 'chat messages',
    schema: chatRequestSchema,
    at: (n) => ({ model: 'm', messages: times(n, { role: 'user' }) }),
    max: MAX_TURNS,
    param: 'messages',
    message: /messages: at most 120000 messages per request/,
  },
  {
    name: 'chat tools',
    schema: chatRequestSchema,
    at: (n) => ({ model: 'm', messages: [{ role: 'user' }], tools: times(n, { type: 'function' }) }),
    max: MAX_TOOLS,
    param: 'tools',
    message: /tools: at most 20000 tools per request/,
  },
  {
    name: 'embeddings strings',
    schema: embeddingsRequestSchema,
    at: (n) => ({ model: 'm', input: times(n, 'a') }),
    max: MAX_EMBEDDING_INPUTS,
    param: 'input',
    message: /input: at most 16384 entries/,
  },
  {
    name: 'embeddings tokens',
    schema: embeddingsRequestSchema,
    at: (n) => ({ model: 'm', input: times(n, 1) }),
    max: MAX_EMBEDDING_INPUTS,
    param: 'input',
    message: /input: at most 16384 entries/,
  },
  {
    name: 'Messages messages',
    schema: messagesRequestSchema,
    at: (n) => ({ model: 'm', max_tokens: 1, messages: times(n, { role: 'user', content: '' }) }),
    max: MAX_TURNS,
    param: 'messages',
    message: /messages: at most 120000 messages/,
  },
  {
    name: 'Messages tools',
    schema: messagesRequestSchema,
    at: (n) => ({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: '' }], tools: times(n, {}) }),
    max: MAX_TOOLS,
    param: 'tools',
    message: /tools: at most 20000 tools/,
  },
  {
    name: 'count_tokens messages',
    schema: messagesCountSchema,
    at: (n) => ({ model: 'm', messages: times(n, { role: 'user', content: '' }) }),
    max: MAX_TURNS,
    param: 'messages',
    message: /messages: at most 120000/,
  },
  {
    name: 'Responses input',
    schema: responsesRequestSchema,
    at: (n) => ({ model: 'm', input: times(n, {}) }),
    max: MAX_TURNS,
    param: 'input',
    message: /input: at most 120000 input items/,
  },
  {
    name: 'Responses namespace tools',
    schema: responsesRequestSchema,
    at: (n) => ({ model: 'm', tools: [{ type: 'namespace', name: 'ns', tools: times(n, {}) }] }),
    max: MAX_TOOLS,
    param: 'tools[0].tools',
    message: /tools\[0\]\.tools: at most 20000 tools in a namespace/,
  },
  {
    name: 'Gemini contents',
    schema: generateContentRequestSchema,
    at: (n) => ({ contents: times(n, { parts: [] }) }),
    max: MAX_TURNS,
    param: 'contents',
    message: /contents: at most 120000 contents/,
  },
  {
    name: 'Gemini function declarations',
    schema: generateContentRequestSchema,
    at: (n) => ({ contents: [], tools: [{ functionDeclarations: times(n, { name: 'f' }) }] }),
    max: MAX_TOOLS,
    param: 'tools[0].functionDeclarations',
    message: /at most 20000 function declarations/,
  },
  {
    name: 'Gemini countTokens contents',
    schema: countTokensRequestSchema,
    at: (n) => ({ contents: times(n, { parts: [] }) }),
    max: MAX_TURNS,
    param: 'contents',
    message: /contents: at most 120000/,
  },
  {
    name: 'Gemini batchEmbedContents requests',
    schema: batchEmbedContentsRequestSchema,
    at: (n) => ({ requests: times(n, { content: { parts: [] } }) }),
    max: MAX_EMBEDDING_INPUTS,
    param: 'requests',
    message: /requests: at most 16384 requests/,
  },
];

/** zod alone, and the compiled check the hot path runs (lib/validate-compiled.ts): both must hold every cap. */
const validators = [
  ['zod', validate],
  ['compiled', validateRequest],
] as const;

for (const c of cases)
  for (const [by, check] of validators) {
    test(`${c.name} (${by}): ${c.max} pass, one more is a 400 naming the field and the cap`, (t) => {
      t.is(check(c.schema, c.at(c.max)), undefined);
      const err = check(c.schema, c.at(c.max + 1));
      t.is(err?.status, 400);
      t.is(err?.param, c.param);
      t.regex(err!.message, c.message);
    });
  }

/** Caps that hold in total over a request's tool groups (issue 38): split over groups, the same cap, on the whole array. */
const totals: Array<{ name: string; schema: z.ZodType; at: At; param: string; message: RegExp }> = [
  {
    name: 'Gemini function declarations over every tool',
    schema: generateContentRequestSchema,
    at: (n) => ({
      contents: [],
      tools: [{ functionDeclarations: times(n - (n >> 1), { name: 'f' }) }, { functionDeclarations: times(n >> 1, { name: 'g' }) }],
    }),
    param: 'tools',
    message: /tools: at most 20000 function declarations per request \(counted over every tool/,
  },
  {
    name: 'Gemini: a tool without declarations counts one',
    schema: generateContentRequestSchema,
    at: (n) => ({ contents: [], tools: [{ functionDeclarations: times(n - 1, { name: 'f' }) }, { googleSearch: {} }] }),
    param: 'tools',
    message: /tools: at most 20000 function declarations per request/,
  },
  {
    name: 'Responses tools over every namespace',
    schema: responsesRequestSchema,
    at: (n) => ({
      model: 'm',
      tools: [
        { type: 'namespace', name: 'a', tools: times(n - (n >> 1), {}) },
        { type: 'namespace', name: 'b', tools: times(n >> 1, {}) },
      ],
    }),
    param: 'tools',
    message: /tools: at most 20000 tools per request \(a namespace's tools counted one by one\)/,
  },
  {
    name: 'Responses: a function beside a namespace counts one',
    schema: responsesRequestSchema,
    at: (n) => ({
      model: 'm',
      tools: [
        { type: 'namespace', name: 'a', tools: times(n - 1, {}) },
        { type: 'function', name: 'f' },
      ],
    }),
    param: 'tools',
    message: /tools: at most 20000 tools per request/,
  },
];

for (const c of totals) {
  test(`${c.name}: ${MAX_TOOLS} in total pass, one more is a 400 on the whole array, checked whole or in slices`, async (t) => {
    const turn = async () => undefined;
    t.is(validate(c.schema, c.at(MAX_TOOLS)), undefined);
    t.is(validateRequest(c.schema, c.at(MAX_TOOLS)), undefined);
    t.is(await validateInSlices(c.schema, c.at(MAX_TOOLS), turn), undefined);
    for (const err of [
      validate(c.schema, c.at(MAX_TOOLS + 1)),
      validateRequest(c.schema, c.at(MAX_TOOLS + 1)),
      await validateInSlices(c.schema, c.at(MAX_TOOLS + 1), turn),
    ]) {
      t.is(err?.status, 400);
      t.is(err?.param, c.param);
      t.regex(err!.message, c.message);
    }
  });
}
