import test from 'ava';
import { z } from 'zod';
import { validate } from '../../lib/schemas.ts';
import { validateRequest } from '../../lib/validate-compiled.ts';
import { responsesRequestSchema } from '../../protocols/openai-responses/schema.ts';
import { fixtureJson } from '../helpers/upstream.ts';

const codex = fixtureJson('responses/codex-0.169-request.json').body;

test('accepts the Codex capture and the spec examples; unknown fields are kept, not stripped', (t) => {
  for (const body of [codex, ...['text-input', 'functions', 'reasoning', 'image-input'].map((n) => fixtureJson(`responses/spec-examples/${n}.request.json`))]) {
    t.is(validate(responsesRequestSchema, body), undefined);
    t.is(validateRequest(responsesRequestSchema, body), undefined, 'compiled');
  }
  const parsed = responsesRequestSchema.parse(codex);
  t.deepEqual(parsed, codex, 'client_metadata, prompt_cache_key, namespace tools… survive parsing');
});

test('rejects bad shapes with a 400 naming the field', (t) => {
  const cases: Array<[unknown, string]> = [
    [{ input: 'x' }, 'model'],
    [{ model: '', input: 'x' }, 'model'],
    [{ model: 'm', input: 3 }, 'input'],
    // a union that failed names the field inside the option the value had the type of
    [{ model: 'm', input: [{ type: 3 }] }, 'input[0].type'],
    [{ model: 'm', max_output_tokens: 0 }, 'max_output_tokens'],
    [{ model: 'm', temperature: 3 }, 'temperature'],
    [{ model: 'm', tools: [{ name: 'f' }] }, 'tools[0].type'],
    [{ model: 'm', tool_choice: 'sometimes' }, 'tool_choice'],
    [{ model: 'm', metadata: { a: 1 } }, 'metadata.a'],
    [{ model: 'm', stream: 'yes' }, 'stream'],
  ];
  for (const [body, param] of cases) {
    for (const err of [validate(responsesRequestSchema, body), validateRequest(responsesRequestSchema, body)]) {
      t.is(err?.status, 400, param);
      t.is(err?.param, param);
    }
  }
});

test('feeds /openapi.json: a JSON Schema with the ResponsesRequest id', (t) => {
  // the options server/openapi.ts uses
  const json = z.toJSONSchema(responsesRequestSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as {
    $ref: string;
    $defs: Record<string, { properties: Record<string, unknown>; required: string[] }>;
  };
  t.is(json.$ref, '#/$defs/ResponsesRequest');
  const doc = json.$defs.ResponsesRequest;
  t.deepEqual(doc.required, ['model']);
  t.true('input' in doc.properties && 'tools' in doc.properties && 'previous_response_id' in doc.properties);
});
