import { readFileSync } from 'node:fs';
import test from 'ava';
import type { ChatCompletionChunk } from '../../lib/common/chat.ts';
import { chatCompletionToMessages } from '../../protocols/anthropic-messages/from-chat-completion.ts';
import { CommonToMessagesStep } from '../../protocols/anthropic-messages/from-common-step.ts';

type Schema = Record<string, unknown>;
/** Anthropic's spec as far as Message and its stream events reach (see test/fixtures/specs/PROVENANCE.md). */
const schemas = (
  JSON.parse(readFileSync(new URL('../fixtures/specs/anthropic.messages.openapi.json', import.meta.url), 'utf8')) as {
    components: { schemas: Record<string, Schema> };
  }
).components.schemas;

/**
 * Fields the 2026 spec marks required that 2025 recordings of the real API lack (see
 * test/fixtures/specs/PROVENANCE.md: "validate leniently"); every other required field is enforced.
 */
const NEWER_REQUIRED = new Set(['stop_details', 'container', 'citations', 'caller', 'cache_creation', 'inference_geo', 'server_tool_use', 'service_tier']);

/** A by-hand check of the subset of JSON Schema the spec uses for these shapes: $ref, discriminators, required, const, enum, types. */
function check(value: unknown, schema: Schema, path: string, errors: string[]): void {
  if (typeof schema.$ref === 'string') {
    check(value, schemas[schema.$ref.split('/').pop()!]!, path, errors);
    return;
  }
  const disc = schema.discriminator as { propertyName: string; mapping: Record<string, string> } | undefined;
  if (disc) {
    const tag = (value as Record<string, unknown>)?.[disc.propertyName];
    const ref = disc.mapping[String(tag)];
    if (!ref) errors.push(`${path}: no schema for ${disc.propertyName} ${String(tag)}`);
    else check(value, { $ref: ref }, path, errors);
    return;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (
      options &&
      !options.some((o) => {
        const e: string[] = [];
        check(value, o, path, e);
        return e.length === 0;
      })
    ) {
      return void errors.push(`${path}: matches no ${key} option`);
    }
  }
  if ('const' in schema && value !== schema.const) errors.push(`${path}: expected ${String(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${path}: ${String(value)} not in enum`);
  const type = schema.type;
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (typeof type === 'string' && type !== actual && !(type === 'number' && actual === 'integer')) {
    return void errors.push(`${path}: expected ${type}, got ${actual}`);
  }
  if (type === 'string' && typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value as string))
    errors.push(`${path}: does not match ${schema.pattern}`);
  if (type === 'array' && schema.items) for (const [i, v] of (value as unknown[]).entries()) check(v, schema.items as Schema, `${path}[${i}]`, errors);
  if (type === 'object') {
    const obj = value as Record<string, unknown>;
    for (const req of (schema.required as string[] | undefined) ?? []) {
      if (!(req in obj) && !NEWER_REQUIRED.has(req)) errors.push(`${path}.${req}: required`);
    }
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const [k, v] of Object.entries(obj)) if (props[k]) check(v, props[k], `${path}.${k}`, errors);
  }
}

function violations(value: unknown, schemaName: string): string[] {
  const errors: string[] = [];
  check(value, { $ref: `#/components/schemas/${schemaName}` }, schemaName, errors);
  return errors;
}

test('the checker rejects what the spec forbids', (t) => {
  t.deepEqual(violations({ id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: 'done', stop_sequence: null }, 'Message'), [
    'Message.usage: required',
    'Message.stop_reason: matches no anyOf option',
  ]);
  t.true(
    violations({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'a b', name: 'f', input: {} } }, 'MessageStreamEvent').some(
      (e) => e.includes('does not match'),
    ),
  );
});

test('a translated response satisfies the Message schema', (t) => {
  const res = chatCompletionToMessages(
    {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'up',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Sure.',
            reasoning_content: 'think',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, prompt_tokens_details: { cached_tokens: 2 } },
    },
    { requestModel: 'my-alias' },
  );
  t.deepEqual(violations(res, 'Message'), []);
  t.deepEqual(
    res.content.map((b) => b.type),
    ['thinking', 'text', 'tool_use'],
  );
});

test('every translated stream event satisfies MessageStreamEvent, message_start included', (t) => {
  const text = readFileSync(new URL('../fixtures/dashscope/vercel-ai/alibaba-reasoning.sse', import.meta.url), 'utf8');
  const chunks = text
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)) as ChatCompletionChunk);
  chunks.splice(3, 0, {
    id: chunks[0]!.id,
    object: 'chat.completion.chunk',
    created: 1,
    model: 'up',
    choices: [
      { index: 0, delta: { tool_calls: [{ index: 0, id: 'call_x', type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: null },
    ],
  });
  const m = new CommonToMessagesStep({ requestModel: 'my-alias' });
  const events = [...chunks.flatMap((c) => m.push(c)), ...m.end()];
  t.is(events[0]!.type, 'message_start');
  t.deepEqual(violations(events[0], 'MessageStartEvent'), []);
  t.deepEqual(
    new Set(events.map((e) => e.type)),
    new Set(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']),
  );
  for (const [i, e] of events.entries()) t.deepEqual(violations(e, 'MessageStreamEvent'), [], `event ${i} (${e.type})`);
});
