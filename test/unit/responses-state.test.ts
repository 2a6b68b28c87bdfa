/**
 * The pieces of the /v1/responses route that are not translation: the response store
 * (ownership, chains, TTL), item references, portable history, reading native stream
 * events without parsing them, native usage and in-band failures. The bounds of an expanded
 * history (size, depth, damaged records) are in responses-history-bounds.test.ts.
 */
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLevelStore } from '../../plugins/stores/level/level.ts';
import { responsesStreamError } from '../../protocols/openai-responses/errors.ts';
import { ExpansionBudget, expandConversation, openConversation, resolveReferences } from '../../plugins/formats/openai-responses/history.ts';
import { inputItems, portable } from '../../protocols/openai-responses/items.ts';
import { fromResponsesUsage, toResponsesUsage } from '../../protocols/openai-responses/map-usage.ts';
import { isTerminal, typeOf } from '../../protocols/openai-responses/passthrough.ts';
import { newResponseId, itemId } from '../../protocols/openai-responses/response-base.ts';
import { ResponseStore, type StoredResponse } from '../../plugins/formats/openai-responses/response-store.ts';
import { sequenceOf } from '../../protocols/openai-responses/native-step.ts';
import { fixture } from '../helpers/upstream.ts';

async function store(t: import('ava').ExecutionContext, ttlDays = 30): Promise<ResponseStore> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-resp-'));
  const s = await openLevelStore(dir);
  t.teardown(async () => {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });
  return new ResponseStore(s.namespace('format:openai-responses'), ttlDays);
}

function record(id: string, chain: string[], text: string): StoredResponse {
  return {
    response: {
      id,
      object: 'response',
      output: [
        { type: 'message', id: itemId('msg', id, 0), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] },
      ],
    },
    input: inputItems(`q ${text}`),
    chain,
    provider: 'p',
    native: false,
  };
}

test('records belong to their owner; history reads a chain in order; a gap or an unknown id is a 404 naming the param', async (t) => {
  const rs = await store(t);
  const [a, b, c] = [newResponseId(), newResponseId(), newResponseId()];
  await rs.put('alice', record(a, [], 'one'), 0);
  await rs.put('alice', record(b, [a], 'two'), undefined);
  await rs.put('alice', record(c, [a, b], 'three'), undefined);
  t.is((await rs.get('alice', a))?.response.id, a);
  t.is(await rs.get('bob', a), undefined);
  t.is(await rs.get('', a), undefined);

  const conv = await openConversation(rs, 'alice', c, 1000);
  t.deepEqual(conv.chain, [a, b, c]);
  t.is(conv.bytes, undefined, 'not known before the history is read: an earlier total was not given');
  const items = await expandConversation(rs, 'alice', conv, new ExpansionBudget(1 << 20, ''));
  t.deepEqual(
    items.map((i) => (i.type === 'message' && Array.isArray(i.content) ? (i.content[0] as { text: string }).text : '')),
    ['q one', 'one', 'q two', 'two', 'q three', 'three'],
  );
  t.is(conv.bytes, Buffer.byteLength(JSON.stringify(items)) - 1, 'the sizes kept add up to the history as JSON: a comma after each item, no brackets');

  const other = await t.throwsAsync(openConversation(rs, 'bob', c, 1000));
  t.like(other, { status: 404, code: 'response_not_found', param: 'previous_response_id' });
  t.true(await rs.delete('alice', b));
  t.false(await rs.delete('alice', b));
  const reopened = await openConversation(rs, 'alice', c, 1000);
  const gap = await t.throwsAsync(expandConversation(rs, 'alice', reopened, new ExpansionBudget(1 << 20, '')));
  t.like(gap, { status: 404, param: 'previous_response_id' });
  t.regex(gap!.message, new RegExp(b));
});

test('records expire after ttl_days', async (t) => {
  const rs = await store(t, 1 / 86_400_000); // 1 ms
  const id = newResponseId();
  await rs.put('k', record(id, [], 'x'), 0);
  await new Promise((r) => setTimeout(r, 20));
  t.is(await rs.get('k', id), undefined);
});

test('item references to stored gw outputs are resolved for their owner only; others are kept', async (t) => {
  const rs = await store(t);
  const id = newResponseId();
  await rs.put('k', record(id, [], 'hello'), 0);
  const ref = { type: 'item_reference', id: itemId('msg', id, 0) };
  const foreign = { type: 'item_reference', id: 'msg_0123openai' };
  const user = { role: 'user', content: 'next' };
  const budget = () => new ExpansionBudget(1 << 20, '');
  const out = await resolveReferences([ref, foreign, user], 'k', rs, budget());
  t.like(out[0], { type: 'message', role: 'assistant', id: ref.id });
  t.is(out[1], foreign);
  t.is(out[2], user);
  t.deepEqual(await resolveReferences([ref], 'other', rs, budget()), [ref]);
  const plain = [user];
  t.is(await resolveReferences(plain, 'k', rs, budget()), plain, 'nothing to resolve: the same array');
});

test('portable history: item ids dropped, reasoning kept only with encrypted_content', (t) => {
  t.deepEqual(
    portable([
      { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'x' }] },
      { type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'think' }] },
      { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'gAAA' },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}' },
    ]),
    [
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'x' }] },
      { type: 'reasoning', summary: [], encrypted_content: 'gAAA' },
      { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
    ],
  );
});

test('native stream events read without parsing: type and sequence_number, on every recorded event', (t) => {
  const lines = fixture('responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt').split('\n').filter(Boolean);
  for (const l of lines) {
    const ev = JSON.parse(l) as { type: string; sequence_number: number };
    t.is(typeOf(l), ev.type);
    t.is(sequenceOf(l), ev.sequence_number);
  }
  t.is(typeOf('{"sequence_number":1,"type":"x"}'), undefined);
  t.is(sequenceOf('{"type":"x"}'), undefined);
  t.true(isTerminal('response.completed') && isTerminal('response.incomplete') && isTerminal('response.failed'));
  t.false(isTerminal('response.output_item.done'));
});

test('native usage → common usage and back', (t) => {
  const u = {
    input_tokens: 134,
    input_tokens_details: { cached_tokens: 100 },
    output_tokens: 28,
    output_tokens_details: { reasoning_tokens: 20 },
    total_tokens: 162,
  };
  const c = fromResponsesUsage(u)!;
  t.deepEqual(c, {
    prompt_tokens: 134,
    completion_tokens: 28,
    total_tokens: 162,
    prompt_tokens_details: { cached_tokens: 100 },
    completion_tokens_details: { reasoning_tokens: 20 },
  });
  t.like(toResponsesUsage(c), {
    input_tokens: 134,
    output_tokens: 28,
    total_tokens: 162,
    input_tokens_details: { cached_tokens: 100 },
    output_tokens_details: { reasoning_tokens: 20 },
  });
  t.is(fromResponsesUsage(null), undefined);
  t.deepEqual(fromResponsesUsage({ input_tokens: 3, output_tokens: 4 }), { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
});

test('in-band failures of a native stream: the recorded quota error; a first rate limit keeps 429', (t) => {
  const [, , error, failed] = fixture('responses/vercel-ai/openai-error.1.chunks.txt')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const e = responsesStreamError(error, 'openai');
  // a mid-stream failure is upstream_error on every kind; the vendor's code is kept beside it
  t.like(e, { status: 502, code: 'upstream_error', upstreamCode: 'insufficient_quota', provider: 'openai' });
  t.regex(e.message, /provider openai failed mid-stream: You exceeded your current quota/);
  t.like(responsesStreamError(failed, 'openai'), { status: 502, code: 'upstream_error', upstreamCode: 'insufficient_quota' });
  const first = responsesStreamError({ type: 'error', code: 'rate_limit_exceeded', message: 'slow down' }, 'openai', true);
  t.like(first, { status: 429, code: 'rate_limit_exceeded' });
  t.is(first.message, 'provider openai: slow down');
});
