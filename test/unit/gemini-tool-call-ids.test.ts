import test from 'ava';
import { counterIdSource, mintToolCallId, parseToolCallId, randomIdSource } from '../../protocols/gemini/tool-call-ids.ts';

// a real signature from vercel-ai/google-tool-call.json (truncated there, still canonical base64)
const SIG = 'EskgCsYgAb4+9vtF7/499YQS2bjZs3xcQI+iAl+ILn29nK1j0Kg6su7QsUUUk3nrAAfnS2w5WiVvlcCqu9fAebJ2cvfaEyBahEt5';

test('an id without signature is call_gw_<nonce> and parses as minted, no signature', (t) => {
  const id = mintToolCallId(undefined, counterIdSource('a'));
  t.is(id, 'call_gw_a0');
  t.deepEqual(parseToolCallId(id), { minted: true, signature: undefined });
});

test('a base64 signature rides in the id as base64url bytes and decodes back exactly', (t) => {
  const id = mintToolCallId(SIG, counterIdSource('a'));
  t.is(id, `call_gw_a0_ts_${Buffer.from(SIG, 'base64').toString('base64url')}`);
  t.regex(id, /^[A-Za-z0-9_-]+$/);
  t.deepEqual(parseToolCallId(id), { minted: true, signature: SIG });
});

test('a signature that is not canonical base64 still round-trips, as text', (t) => {
  for (const sig of ['not base64!', 'abc', 'skip_thought_signature_validator', 'ünïcode/+=']) {
    const id = mintToolCallId(sig, counterIdSource());
    t.true(id.startsWith('call_gw_n0_tx_'), id);
    t.regex(id, /^[A-Za-z0-9_-]+$/);
    t.is(parseToolCallId(id).signature, sig);
  }
});

test('ids of other providers and clients are foreign and carry nothing', (t) => {
  for (const id of ['call_abc123XYZ', 'toolu_01A09q90qw90lq917835lq9', 'call_-7807249954186984837', 'call_gw_x_ts_!!', 'call_gw_', 'x_ts_abc']) {
    t.deepEqual(parseToolCallId(id), { minted: false, signature: undefined }, id);
  }
});

test('the default id source gives distinct alphanumeric nonces; a bad source is refused', (t) => {
  const a = mintToolCallId(undefined);
  const b = mintToolCallId(undefined);
  t.not(a, b);
  t.regex(randomIdSource(), /^[0-9a-f]{24}$/);
  t.throws(() => mintToolCallId(undefined, () => 'has_underscore'), { message: /alphanumeric/ });
});
