/**
 * Lookups of names a client or an upstream chooses in gw's own tables find own entries
 * only: `constructor`, `toString`, `hasOwnProperty` and `__proto__` are unknown names, not
 * `Object.prototype`'s members (lib/own.ts).
 */
import test from 'ava';
import { expandEnv } from '../../server/config/expand.ts';
import { GatewayError } from '../../core/errors.ts';
import type { ChatRequest } from '../../lib/common/chat.ts';
import { own, protoKeyPath, setOwn } from '../../lib/own.ts';
import { messagesErrorStatus, messagesStreamError } from '../../protocols/anthropic-messages/errors.ts';
import { inlineDataToPart } from '../../protocols/gemini/convert-media.ts';
import { googleSchemaToJsonSchema } from '../../protocols/gemini/convert-schema.ts';
import { responsesToChatRequest } from '../../protocols/openai-responses/to-chat-request.ts';
import type { ResponsesRequest } from '../../protocols/openai-responses/types.ts';
import { toMessagesRequest } from '../../protocols/anthropic-messages/to-messages-request.ts';
import { guessImageMimeType } from '../../protocols/gemini/convert-media-part.ts';

const PROTO = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf'];

test('own / setOwn / protoKeyPath', (t) => {
  const table: Record<string, number> = { a: 1 };
  for (const name of PROTO) t.is(own(table, name), undefined, name);
  t.is(own(table, 'a'), 1);
  t.is(own(undefined, 'a'), undefined);
  const o = {};
  setOwn(o, '__proto__', { x: 1 });
  t.true(Object.hasOwn(o, '__proto__'));
  t.is(Object.getPrototypeOf(o), Object.prototype);
  t.is(JSON.stringify(o), '{"__proto__":{"x":1}}');
  t.deepEqual(protoKeyPath(JSON.parse('{"a": [{"b": 1}, {"c": {"__proto__": 2}}]}')), ['a', 1, 'c', '__proto__']);
  t.is(protoKeyPath({ a: [{ constructor: 1, toString: { hasOwnProperty: 2 } }] }), undefined);
});

test('an upstream error type named like a prototype member is an unknown type (500 → 502), not a function for a status', (t) => {
  for (const type of PROTO) {
    t.is(messagesErrorStatus(type), 500, type);
    const err = messagesStreamError({ type, message: 'boom' }, 'p', true);
    t.is(err.status, 502, type);
    t.is(err.upstreamStatus, 500, type);
  }
  t.is(messagesErrorStatus('rate_limit_error'), 429);
});

test('anthropic translation: reasoning_effort "constructor" is a 400; client fields named like prototype members are dropped as unknown', (t) => {
  const req = (over: Record<string, unknown>) => ({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }], ...over }) as ChatRequest;
  for (const effort of PROTO) {
    const err = t.throws(() => toMessagesRequest(req({ reasoning_effort: effort })), { instanceOf: GatewayError });
    t.is(err!.param, 'reasoning_effort', effort);
  }
  const { warnings } = toMessagesRequest(req({ constructor: 1, toString: 'x' }));
  t.true(warnings.includes('constructor dropped: not a field anthropic models understand'), warnings.join('; '));
  t.true(warnings.includes('toString dropped: not a field anthropic models understand'), warnings.join('; '));
});

test('Responses translation: a body field named like a prototype member is dropped with a warning, not taken for a refused one', (t) => {
  const body = { model: 'm', input: 'hi', toString: 'x', constructor: 1 } as unknown as ResponsesRequest;
  const { warnings } = responsesToChatRequest(body);
  t.true(
    warnings.some((w) => w.startsWith('toString dropped')),
    warnings.join('; '),
  );
  t.true(
    warnings.some((w) => w.startsWith('constructor dropped')),
    warnings.join('; '),
  );
});

test('Gemini media: an extension or media type named like a prototype member is unknown', (t) => {
  t.is(guessImageMimeType('https://example.com/a.constructor'), 'image/jpeg');
  t.is(guessImageMimeType('https://example.com/a.png'), 'image/png');
  for (const mime of ['constructor', '__proto__', 'tostring']) {
    const part = inlineDataToPart({ mimeType: mime, data: 'AAAA' }, 'p') as { type: string; file?: { filename: string } };
    t.is(part.type, 'file', mime);
    t.is(part.file!.filename, 'file.bin', mime);
  }
});

test('Gemini schema: a property named __proto__ is kept as a property', (t) => {
  const schema = JSON.parse('{"type": "OBJECT", "properties": {"__proto__": {"type": "STRING"}, "toString": {"type": "NUMBER"}}, "__proto__": "kept"}');
  const out = googleSchemaToJsonSchema(schema, 'p');
  t.is(JSON.stringify(out), '{"type":"object","properties":{"__proto__":{"type":"string"},"toString":{"type":"number"}},"__proto__":"kept"}');
  t.is(Object.getPrototypeOf(out.properties), Object.prototype);
});

test('${VAR} names a variable of its own: ${toString} is unset', (t) => {
  t.throws(() => expandEnv({ k: '${toString}' }, 'gw.toml', {}), { message: /environment variable toString is not set/ });
  t.deepEqual(expandEnv({ k: '${constructor:-d}' }, 'gw.toml', {}), { k: 'd' });
  t.deepEqual(expandEnv({ k: '${A}' }, 'gw.toml', { A: 'x' }), { k: 'x' });
});
