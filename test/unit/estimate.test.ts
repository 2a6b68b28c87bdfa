/**
 * The early-end estimator (lib/common/estimate.ts): reading an output field's length from
 * raw event data without parsing it, the per-stream tally, and the charge it makes with
 * what the upstream reported.
 */
import test from 'ava';
import { ATTACHMENT_TOKENS, estimateTokens, jsonFieldBytes, partialCharge, StreamProgress } from '../../lib/common/estimate.ts';

const bytesOf = (s: string) => Buffer.byteLength(s, 'utf8');

test('jsonFieldBytes: the UTF-8 bytes of a string value as the JSON text encodes it, escapes decoded', (t) => {
  for (const text of ['Hello', '', 'a "quoted" word\nnew line\ttab\\', 'héllo 世界 🎉', '\u0000\u001f', '</script>']) {
    t.is(jsonFieldBytes(JSON.stringify({ type: 'x', text }), '"text":'), bytesOf(text), JSON.stringify(text));
  }
  // upstreams that escape every non-ASCII character (Python's json.dumps default)
  t.is(jsonFieldBytes('{"text": "\\u4e16\\u754c \\ud83c\\udf89 \\u00e9"}', '"text":'), bytesOf('世界 🎉 é'));
});

test('jsonFieldBytes: every occurrence, spaces after the colon, object values by their length, other values nothing', (t) => {
  const gemini = JSON.stringify({
    candidates: [{ content: { parts: [{ text: 'one' }, { text: 'two' }, { functionCall: { name: 'f', args: { q: 'x}"' } } }] } }],
  });
  t.is(jsonFieldBytes(gemini, '"text":'), 6);
  t.is(jsonFieldBytes(gemini, '"args":'), JSON.stringify({ q: 'x}"' }).length);
  t.is(jsonFieldBytes('{"text" : "no"}', '"text":'), 0, 'a space before the colon is not what upstream encoders write');
  t.is(jsonFieldBytes('{"text":   "abc"}', '"text":'), 3);
  t.is(jsonFieldBytes('{"text":null,"n":{"text":12}}', '"text":'), 0);
  t.is(jsonFieldBytes('{"other":"\\"text\\": \\"inside a string\\""}', '"text":'), 0, 'a key inside a string value has escaped quotes: never matched');
  t.is(jsonFieldBytes('{"text":"cut short', '"text":'), 9, 'an unterminated value counts what is there');
});

test("StreamProgress: counts a chunk's content, reasoning, refusal and tool calls; a usage report covers what came before", (t) => {
  const p = new StreamProgress();
  const chunk = (delta: Record<string, unknown>, usage?: Record<string, number>) => ({
    id: 'c',
    object: 'chat.completion.chunk' as const,
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: null }],
    ...(usage ? { usage: { ...usage, total_tokens: 0 } as never } : {}),
  });
  p.chunk(chunk({ content: 'héllo' }));
  p.chunk(chunk({ reasoning_content: 'think', refusal: 'no' }));
  p.chunk(chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"q":1}' } }] }));
  t.is(p.bytes, bytesOf('héllo') + 5 + 2 + 1 + 7);
  p.chunk(chunk({ content: 'covered' }, { prompt_tokens: 3, completion_tokens: 9 }));
  t.is(p.bytes, 0, 'the usage on that chunk covers it and everything before');
  p.text('after');
  p.field('{"delta":"more"}', '"delta":');
  t.is(p.bytes, 9);
  p.deferUsage('{"usage":{"p":4}}', (raw) => ({ prompt_tokens: (JSON.parse(raw) as { usage: { p: number } }).usage.p, completion_tokens: 2, total_tokens: 6 }));
  t.is(p.bytes, 0);
  t.deepEqual(p.deferredUsage(), { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 });
  p.reported();
  t.is(p.deferredUsage(), undefined);
  p.deferUsage('not json', (raw) => JSON.parse(raw));
  t.is(p.deferredUsage(), undefined, 'a report that cannot be read is none');
});

test('partialCharge: the reported usage completed by the output after it; estimated unless all of it was reported', (t) => {
  const prompt = () => 40;
  t.deepEqual(partialCharge(undefined, 10, prompt), { usage: { prompt_tokens: 40, completion_tokens: 3, total_tokens: 43 }, estimated: true });
  t.deepEqual(
    partialCharge(undefined, 0, prompt),
    { usage: { prompt_tokens: 40, completion_tokens: 0, total_tokens: 40 }, estimated: true },
    'nothing streamed but the first byte: the prompt',
  );
  const reported = { prompt_tokens: 11, completion_tokens: 1, total_tokens: 12, prompt_tokens_details: { cached_tokens: 5 } };
  t.deepEqual(
    partialCharge(reported, 11, prompt),
    { usage: { ...reported, completion_tokens: 4, total_tokens: 15 }, estimated: true },
    'message_start, then "Hello there"',
  );
  t.deepEqual(
    partialCharge({ prompt_tokens: 9, completion_tokens: 208, total_tokens: 217 }, 0, prompt),
    { usage: { prompt_tokens: 9, completion_tokens: 208, total_tokens: 217 }, estimated: false },
    'a running count covering all: exact',
  );
  t.deepEqual(partialCharge({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, 0, prompt).usage.prompt_tokens, 40, 'a prompt of 0 was not counted');
});

test('estimateTokens: text by bytes, inline attachments by a flat count, not by their base64 size', (t) => {
  const image = 'A'.repeat(400_000);
  const withImage = estimateTokens({
    messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } }] }],
  });
  t.true(withImage >= ATTACHMENT_TOKENS && withImage < ATTACHMENT_TOKENS + 100);
  const dataUrl = estimateTokens({ input: [{ type: 'input_image', image_url: `data:image/png;base64,${image}` }] });
  t.true(dataUrl >= ATTACHMENT_TOKENS && dataUrl < ATTACHMENT_TOKENS + 100);
  t.is(estimateTokens({ text: 'abcdefgh' }), Math.ceil((4 + 8) / 4) + 3);
});
