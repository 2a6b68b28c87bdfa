/**
 * The chunk onChunk taps see (core/pipeline/chunk-holder.ts): raw text is parsed only when a
 * tap reads `value`, once for every tap; an object gw built is handed as is; text that is not
 * JSON reads as undefined instead of failing the stream. And the otel tap's use of it: only
 * the chunks that can carry a response fact are parsed (ResponseFacts.wants, chunk.mightFinish).
 */
import test from 'ava';
import { ChunkHolder } from '../../core/pipeline/chunk-holder.ts';
import { messagesContent } from '../../protocols/anthropic-messages/content.ts';
import { geminiContent } from '../../protocols/gemini/content.ts';
import { chatContent } from '../../protocols/openai-chat/content.ts';
import { responsesContent } from '../../protocols/openai-responses/content.ts';
import { ResponseFacts } from '../../plugins/extensions/otel/genai.ts';

test('raw text is parsed on the first read of value, once, and only then', (t) => {
  const h = new ChunkHolder('openai-chat');
  const parse = JSON.parse;
  let parses = 0;
  JSON.parse = (text: string) => {
    parses++;
    return parse(text);
  };
  try {
    const c = h.next('{"id":"a","choices":[]}', undefined);
    t.is(c.data, '{"id":"a","choices":[]}');
    t.is(parses, 0);
    t.deepEqual(c.value, { id: 'a', choices: [] });
    t.is(c.value, c.value);
    t.is(parses, 1);
    h.next('{"id":"b"}', undefined);
    t.is(parses, 1, 'a chunk nobody reads is never parsed');
    t.deepEqual(h.next('{"id":"c"}', undefined).value, { id: 'c' });
    t.is(parses, 2);
  } finally {
    JSON.parse = parse;
  }
});

test('an object gw built is handed as is, with no text; text that is not JSON reads as undefined', (t) => {
  const h = new ChunkHolder('anthropic-messages');
  const ev = { type: 'message_stop' };
  const c = h.next(undefined, ev);
  t.is(c.value, ev);
  t.is(c.data, undefined);
  t.is(h.next('{"type":', undefined).value as unknown, undefined);
  const parsed = { id: 'x' };
  t.is(h.next('{"id":"x"}', parsed).value, parsed, 'an event gw parsed anyway is not parsed again');
});

test("ResponseFacts.wants: the first chunks and those that may carry a finish reason, by the format's finishHint", (t) => {
  const facts = new ResponseFacts();
  const chat = new ChunkHolder('openai-chat', chatContent);
  const first = chat.next('{"id":"c1","model":"m","choices":[{"delta":{"content":"Hi"},"finish_reason":null}]}', undefined);
  t.true(facts.wants(first));
  facts.event(first.content());
  t.false(facts.wants(chat.next('{"id":"c1","model":"m","choices":[{"delta":{"content":"there"},"finish_reason":null}]}', undefined)));
  t.true(facts.wants(chat.next('{"id":"c1","model":"m","choices":[{"delta":{},"finish_reason":"stop"}]}', undefined)));
  t.true(facts.wants(chat.next(undefined, { id: 'c1', choices: [] })));
  const messages = new ChunkHolder('anthropic-messages', messagesContent);
  t.false(facts.wants(messages.next('{"type":"content_block_delta","delta":{"type":"text_delta","text":"Hi"}}', undefined)));
  t.true(facts.wants(messages.next('{"type":"message_delta","delta":{"stop_reason":"end_turn"}}', undefined)));
  const responses = new ChunkHolder('openai-responses', responsesContent);
  t.false(facts.wants(responses.next('{"type":"response.output_text.delta","delta":"Hi"}', undefined)));
  t.true(facts.wants(responses.next('{"type":"response.completed","response":{"status":"completed"}}', undefined)));
  const gemini = new ChunkHolder('gemini', geminiContent);
  t.false(facts.wants(gemini.next('{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}', undefined)));
  t.true(facts.wants(gemini.next('{"candidates":[{"content":{"parts":[{"text":"."}]},"finishReason":"STOP"}]}', undefined)));
  t.true(facts.wants(new ChunkHolder('my-format').next('{"anything":1}', undefined)), 'a format without a reader: every chunk');
});

test("content(): the chunk read by its format's reader, once per chunk, read-only; mightFinish() tests the text without parsing", (t) => {
  const h = new ChunkHolder('anthropic-messages', messagesContent);
  const delta = h.next('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}', undefined);
  t.false(delta.mightFinish());
  t.is(delta.content(), delta.content());
  t.deepEqual(
    delta.content().deltas.map((d) => d.text),
    ['Hi'],
  );
  t.throws(() => delta.content().deltas[0]!.set('x'), { message: /read-only here/ });
  const end = h.next('{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}', undefined);
  t.true(end.mightFinish());
  t.deepEqual(end.content().finish, [{ index: 0, reason: 'stop', native: 'end_turn' }]);
  t.true(h.next(undefined, { type: 'message_stop' }).mightFinish(), 'a chunk gw built has no text to test');
  const bare = new ChunkHolder('my-format');
  t.true(bare.next('{"a":1}', undefined).mightFinish(), 'without a reader every chunk may finish');
  t.deepEqual(bare.next('{"a":1}', undefined).content().deltas, []);
});
