import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import { embeddingInputs, fromBatchEmbedResponse, toBatchEmbedRequest } from '../../protocols/gemini/batch-embed.ts';

test('inputs → one EmbedContentRequest each, dimensions → outputDimensionality', (t) => {
  t.deepEqual(toBatchEmbedRequest({ model: 'gemini-embedding-001', input: ['a b', 'c'], dimensions: 768, user: 'u' }, 'gemini-embedding-001'), {
    requests: [
      { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a b' }] }, outputDimensionality: 768 },
      { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'c' }] }, outputDimensionality: 768 },
    ],
  });
  t.deepEqual(toBatchEmbedRequest({ model: 'm', input: 'one' }, 'text-embedding-004'), {
    requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'one' }] } }],
  });
});

test('token-array and empty inputs are a 400 naming input', (t) => {
  for (const input of [[1, 2, 3], [[1, 2]], []] as const) {
    const err = t.throws(() => embeddingInputs({ model: 'm', input: input as never }), { instanceOf: GatewayError });
    t.is(err.param, 'input');
    t.is(err.status, 400);
  }
  t.is(t.throws(() => toBatchEmbedRequest({ model: 'm', input: 'x', dimensions: 0 }, 'm'))?.message, 'dimensions must be a positive integer');
});

test('float embeddings in order; usage from Gemini when reported', (t) => {
  const res = fromBatchEmbedResponse(
    { embeddings: [{ values: [0.5138951, 0.857853] }, { values: [-0.5045317, -0.8633931] }], usageMetadata: { promptTokenCount: 12 } },
    'gemini-embedding-2',
    'float',
    ['aaaa', 'b'],
  );
  t.deepEqual(res, {
    object: 'list',
    data: [
      { object: 'embedding', index: 0, embedding: [0.5138951, 0.857853] },
      { object: 'embedding', index: 1, embedding: [-0.5045317, -0.8633931] },
    ],
    model: 'gemini-embedding-2',
    usage: { prompt_tokens: 12, total_tokens: 12 },
  });
});

test('base64 is little-endian float32 bytes; usage estimated at ceil(chars/4) per input without Gemini counts', (t) => {
  const res = fromBatchEmbedResponse({ embeddings: [{ values: [1, -2.5, 0.1] }] }, 'text-embedding-004', 'base64', ['hello world', 'abcd']);
  const expected = Buffer.from(new Uint8Array([0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0, 0xcd, 0xcc, 0xcc, 0x3d])).toString('base64');
  t.is(res.data[0]!.embedding, expected);
  const decoded = new Float32Array(new Uint8Array(Buffer.from(expected, 'base64')).buffer);
  t.deepEqual([...decoded], [1, -2.5, Math.fround(0.1)]);
  t.deepEqual(res.usage, { prompt_tokens: 3 + 1, total_tokens: 4 });
});
