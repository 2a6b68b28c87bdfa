/**
 * The compiled request validation (lib/validate-compiled.ts) agrees with zod, the schemas'
 * source of truth: on recorded and spec request bodies of every client format and on
 * thousands of their mutations (a field removed, retyped, emptied, nulled, out of range,
 * a long array past its cap), the compiled check passes exactly the bodies zod passes, and
 * `validateRequest` answers what `validate` answers (the same 400, field and message).
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import test from 'ava';
import fc from 'fast-check';
import type { z } from 'zod';
import { validate } from '../../lib/schemas.ts';
import { compiledCheck, validateRequest } from '../../lib/validate-compiled.ts';
import { countTokensRequestSchema as messagesCountSchema, messagesRequestSchema } from '../../protocols/anthropic-messages/schema.ts';
import {
  batchEmbedContentsRequestSchema,
  countTokensRequestSchema,
  embedContentRequestSchema,
  generateContentRequestSchema,
} from '../../protocols/gemini/schemas.ts';
import { chatRequestSchema, embeddingsRequestSchema } from '../../protocols/openai-chat/schema.ts';
import { responsesRequestSchema } from '../../protocols/openai-responses/schema.ts';
import { MAX_TOOLS } from '../../lib/common/limits.ts';
import { FIXTURES, fixtureJson } from '../helpers/upstream.ts';

/** Every recorded or spec request body under `dir` of the fixtures. */
function requestsUnder(dir: string): unknown[] {
  const out: unknown[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('request.json')) out.push(fixtureJson(relative(FIXTURES, p)));
    }
  };
  walk(join(FIXTURES, dir));
  return out;
}

const handMade: Record<string, unknown[]> = {
  embeddings: [
    { model: 'm', input: 'a' },
    { model: 'm', input: ['a', 'b'], encoding_format: 'float', dimensions: 8 },
    { model: 'm', input: [[1, 2]] },
  ],
  messagesCount: [{ model: 'm', messages: [{ role: 'user', content: 'hi' }] }],
  geminiCount: [{ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }],
  geminiEmbed: [{ content: { parts: [{ text: 'hi' }] } }],
  geminiBatch: [{ requests: [{ model: 'models/m', content: { parts: [{ text: 'hi' }] } }] }],
};

const formats: Array<{ name: string; schema: z.ZodType; bodies: unknown[] }> = [
  { name: 'chat', schema: chatRequestSchema, bodies: requestsUnder('openai') },
  { name: 'embeddings', schema: embeddingsRequestSchema, bodies: handMade.embeddings! },
  { name: 'messages', schema: messagesRequestSchema, bodies: requestsUnder('anthropic') },
  { name: 'messages count', schema: messagesCountSchema, bodies: handMade.messagesCount! },
  { name: 'responses', schema: responsesRequestSchema, bodies: requestsUnder('responses') },
  { name: 'gemini', schema: generateContentRequestSchema, bodies: requestsUnder('gemini') },
  { name: 'gemini count', schema: countTokensRequestSchema, bodies: handMade.geminiCount! },
  { name: 'gemini embed', schema: embedContentRequestSchema, bodies: handMade.geminiEmbed! },
  { name: 'gemini batch embed', schema: batchEmbedContentsRequestSchema, bodies: handMade.geminiBatch! },
];

/** Values a field is swapped for: every JSON type, edge numbers, empty and long containers. */
const SWAPS: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2,
  3,
  2 ** 53,
  '',
  'x',
  'auto',
  [],
  ['x'],
  [1],
  [{}],
  {},
  { type: 'text' },
  { type: 3 },
  { role: 'user' },
  { parts: [] },
];

/** Where a body's values are: every path to an object member or array element, depth-first, at most `max`. */
function paths(body: unknown, max = 400): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [];
  const walk = (v: unknown, at: Array<string | number>) => {
    if (out.length >= max || typeof v !== 'object' || v === null) return;
    const keys: Array<string | number> = Array.isArray(v) ? v.map((_, i) => i).slice(0, 3) : Object.keys(v);
    for (const k of keys) {
      out.push([...at, k]);
      walk((v as Record<string | number, unknown>)[k], [...at, k]);
    }
  };
  walk(body, []);
  return out;
}

/** A copy of `body` with the value at `path` replaced (`undefined`: removed). */
function mutate(body: unknown, path: Array<string | number>, value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = value;
  return copy;
}

/** The bodies the check runs on: each valid body, then its mutations. */
function corpus(bodies: unknown[]): unknown[] {
  const out: unknown[] = [...bodies, {}, [], 'x', null];
  for (const body of bodies) {
    for (const path of paths(body)) {
      out.push(mutate(body, path, undefined));
      for (const swap of SWAPS) out.push(mutate(body, path, swap));
    }
  }
  return out;
}

for (const f of formats) {
  test(`${f.name}: the compiled check and zod agree on every body of the corpus`, (t) => {
    const check = compiledCheck(f.schema);
    t.not(check, null, 'the schema compiles');
    t.true(f.bodies.length > 0, 'valid bodies to start from');
    let valid = 0;
    let invalid = 0;
    for (const body of corpus(f.bodies)) {
      const byZod = validate(f.schema, body);
      if (check!(body) !== (byZod === undefined)) t.fail(`disagree on ${JSON.stringify(body).slice(0, 300)}: zod ${byZod?.message ?? 'valid'}`);
      const answered = validateRequest(f.schema, body);
      t.is(answered?.message, byZod?.message);
      t.is(answered?.param, byZod?.param);
      if (byZod === undefined) valid++;
      else invalid++;
    }
    t.true(valid >= f.bodies.length, 'every recorded body is valid');
    t.true(invalid > 0, 'the mutations include invalid bodies');
  });
}

test('property: any JSON value put anywhere in a recorded body, the compiled check and zod agree (seeded)', (t) => {
  for (const f of formats) {
    const check = compiledCheck(f.schema)!;
    const where = f.bodies.map((b) => paths(b));
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }), (bodyAt, pathAt, value) => {
        const body = f.bodies[bodyAt % f.bodies.length];
        const at = where[bodyAt % f.bodies.length]!;
        const mutated = at.length === 0 ? value : mutate(body, at[pathAt % at.length]!, value);
        return check(mutated) === (validate(f.schema, mutated) === undefined);
      }),
      { seed: 43, numRuns: 400 },
    );
  }
  t.pass();
});

test('a total cap (lib/array-totals.ts) is compiled: past it the compiled check refuses, and the 400 names the field and the cap', (t) => {
  const perTool = 2;
  const tools = Array.from({ length: Math.ceil(MAX_TOOLS / perTool) + 1 }, (_, i) => ({
    functionDeclarations: Array.from({ length: perTool }, (_, j) => ({ name: `f${i}_${j}` })),
  }));
  const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools };
  t.false(compiledCheck(generateContentRequestSchema)!(body));
  const err = validateRequest(generateContentRequestSchema, body);
  t.is(err?.status, 400);
  t.is(err?.param, 'tools');
  t.regex(err!.message, /at most 20000/);
  t.deepEqual(err?.message, validate(generateContentRequestSchema, body)?.message);
});

test('a schema with a refinement the JSON Schema cannot say is left to zod', async (t) => {
  const { z } = await import('zod');
  const odd = z.object({ n: z.number().refine((n) => n % 2 === 1, 'odd') });
  t.is(compiledCheck(odd), null);
  t.is(validateRequest(odd, { n: 2 })?.param, 'n');
  t.is(validateRequest(odd, { n: 3 }), undefined);
});

test('string lengths count code points, as zod does (an astral character is one)', async (t) => {
  const { z } = await import('zod');
  const short = z.object({ s: z.string().max(1) });
  t.not(compiledCheck(short), null);
  for (const s of ['a', '😀', 'ab', '😀😀', 'a😀']) t.is(compiledCheck(short)!({ s }), validate(short, { s }) === undefined, s);
});
