/**
 * The bounds of a history gw expands from its store (issue 23): records keep the size of
 * their items and of their conversation; a conversation over the budget (`max_body_bytes`) is
 * refused before its records are read when its size is known, and as soon as it is crossed
 * when not (records from before sizes were kept); a chain over `max_chain_length` is refused;
 * a damaged record is a 409, never a throw from JSON.parse.
 */
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLevelStore } from '../../plugins/stores/level/level.ts';
import type { Store } from '../../lib/store/types.ts';
import { ExpansionBudget, expandConversation, openConversation, resolveReferences } from '../../plugins/formats/openai-responses/history.ts';
import { decodeRecord, encodeRecord, sizeOf } from '../../plugins/formats/openai-responses/record.ts';
import { itemId, newResponseId } from '../../protocols/openai-responses/response-base.ts';
import { ResponseStore, type StoredResponse } from '../../plugins/formats/openai-responses/response-store.ts';
import { inputItems } from '../../protocols/openai-responses/items.ts';

/** A response store on a fresh LevelDB, and a count of the records read from it. */
async function store(t: import('ava').ExecutionContext): Promise<{ rs: ResponseStore; ns: Store; reads: () => number }> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-resp-bounds-'));
  const s = await openLevelStore(dir);
  t.teardown(async () => {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });
  const ns = s.namespace('format:openai-responses');
  let reads = 0;
  const counted = new Proxy(ns, {
    get(target, prop) {
      if (prop === 'get')
        return (key: string) => {
          reads++;
          return target.get(key);
        };
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { rs: new ResponseStore(counted, 30), ns, reads: () => reads };
}

function record(id: string, chain: string[], text: string): StoredResponse {
  return {
    response: {
      id,
      object: 'response',
      tools: [{ type: 'function', name: 'f', description: 'x'.repeat(500) }],
      output: [{ type: 'message', id: itemId('msg', id, 0), role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
    },
    input: inputItems(`q ${text}`),
    chain,
    provider: 'p',
    native: false,
  };
}

/** `n` responses in one conversation, each with `text` as its answer; `sized`: written with sizes and totals (else as before sizes were kept). */
async function chain(rs: ResponseStore, ns: Store, owner: string, n: number, text: string, sized: boolean): Promise<string[]> {
  const ids: string[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    const rec = record(newResponseId(), ids.slice(), text);
    if (sized) {
      await rs.put(owner, rec, total);
      total += sizeOf(decodeRecord(encodeRecord(rec, 0))!);
    } else await ns.set(`r:${rec.response.id}:${owner}`, JSON.stringify(rec));
    ids.push(rec.response.id);
  }
  return ids;
}

const budget = (limit: number, own = 0) => new ExpansionBudget(limit, 'x'.repeat(own));

test('a record keeps the UTF-8 size of its items (a comma after each) and its conversation total; a record without them reads the same and is measured', (t) => {
  const rec = record(newResponseId(), [], 'héllo wörld — 你好 🌍');
  rec.input.push({ type: 'function_call_output', call_id: 'c', output: '"quoted"\n' });
  const items = [...rec.input, ...(rec.response.output as unknown[])];
  const expected = Buffer.byteLength(JSON.stringify(items)) - 1;
  const decoded = decodeRecord(encodeRecord(rec, 1000))!;
  t.is(decoded.size, expected);
  t.is(decoded.total, 1000 + expected);
  t.deepEqual({ ...decoded, size: undefined, total: undefined }, { ...rec, size: undefined, total: undefined });
  t.is(decodeRecord(encodeRecord(rec, undefined))!.total, undefined, 'an unknown earlier total leaves the total unknown');

  const old = decodeRecord(JSON.stringify(rec))!;
  t.is(old.size, undefined);
  t.is(sizeOf(old), expected);

  const noOutput = { ...rec, response: { id: rec.response.id } };
  t.is(decodeRecord(encodeRecord(noOutput, 0))!.size, Buffer.byteLength(JSON.stringify(rec.input)) - 1);
  t.is(decodeRecord(encodeRecord({ ...rec, input: [], response: { id: 'x', output: [] } }, 0))!.size, 0);
});

test('a stored text that is not a record gw wrote decodes to undefined; a size that is not a byte count is dropped', (t) => {
  const good = JSON.parse(encodeRecord(record(newResponseId(), [], 'x'), 0)) as Record<string, unknown>;
  for (const bad of [
    'not json',
    '',
    '[]',
    'null',
    JSON.stringify({ ...good, response: { output: [] } }),
    JSON.stringify({ ...good, response: 'resp_1' }),
    JSON.stringify({ ...good, input: 'hi' }),
    JSON.stringify({ ...good, input: [1] }),
    JSON.stringify({ ...good, input: [null] }),
    JSON.stringify({ ...good, chain: [7] }),
    JSON.stringify({ ...good, chain: undefined }),
  ])
    t.is(decodeRecord(bad), undefined, bad.slice(0, 80));
  const odd = decodeRecord(JSON.stringify({ ...good, size: -1, total: '12' }))!;
  t.is(odd.size, undefined);
  t.is(odd.total, undefined);
  t.true(sizeOf(odd) > 0);
  t.deepEqual(
    decodeRecord(JSON.stringify({ ...good, response: { id: 'r', output: 'odd' } }))!.response.output,
    'odd',
    'the upstream’s own output is kept as answered',
  );
});

test('a conversation whose total is over the budget is refused before any earlier record is read', async (t) => {
  const { rs, ns, reads } = await store(t);
  const ids = await chain(rs, ns, 'k', 40, 'y'.repeat(1000), true);
  const conv = await openConversation(rs, 'k', ids.at(-1)!, 1000);
  t.true(conv.bytes! > 40_000);
  const before = reads();
  const err = await t.throwsAsync(expandConversation(rs, 'k', conv, budget(20_000)));
  t.like(err, { status: 400, code: 'conversation_too_large', param: 'previous_response_id' });
  t.regex(err!.message, /max_body_bytes \(20000 bytes\)/);
  t.is(reads(), before, 'no earlier record read');

  // the same history fits a budget above it, and the request's own bytes count
  const fits = await openConversation(rs, 'k', ids.at(-1)!, 1000);
  t.is((await expandConversation(rs, 'k', fits, budget(conv.bytes!))).length, 80);
  const own = await t.throwsAsync(expandConversation(rs, 'k', await openConversation(rs, 'k', ids.at(-1)!, 1000), budget(conv.bytes!, 1)));
  t.like(own, { code: 'conversation_too_large' });
});

test('records written before sizes were kept: reading stops at the window where the budget is crossed', async (t) => {
  const { rs, ns, reads } = await store(t);
  const ids = await chain(rs, ns, 'k', 200, 'z'.repeat(1000), false);
  const conv = await openConversation(rs, 'k', ids.at(-1)!, 1000);
  t.is(conv.bytes, undefined);
  const before = reads();
  const err = await t.throwsAsync(expandConversation(rs, 'k', conv, budget(10_000)));
  t.like(err, { status: 400, code: 'conversation_too_large' });
  t.true(reads() - before <= 32, `read ${reads() - before} of 199 earlier records`);

  // fitting: measured as it is read, the same as sizes kept would say
  const small = await chain(rs, ns, 'k', 5, 'w', false);
  const c2 = await openConversation(rs, 'k', small.at(-1)!, 1000);
  const items = await expandConversation(rs, 'k', c2, budget(1 << 20));
  t.is(c2.bytes, Buffer.byteLength(JSON.stringify(items)) - 1);
});

test('a response may continue at most max_chain_length responses', async (t) => {
  const { rs, ns } = await store(t);
  const ids = await chain(rs, ns, 'k', 4, 'v', true);
  t.deepEqual((await openConversation(rs, 'k', ids[3]!, 4)).chain, ids, 'a chain of exactly the limit');
  const err = await t.throwsAsync(openConversation(rs, 'k', ids[3]!, 3));
  t.like(err, { status: 400, code: 'conversation_too_long', param: 'previous_response_id' });
  t.regex(err!.message, /more than 3 responses \(\[responses\] max_chain_length\)/);
});

test('a damaged record: 409 naming it, for itself (get, continuation) and as an earlier response; deleting it works', async (t) => {
  const { rs, ns } = await store(t);
  const ids = await chain(rs, ns, 'k', 3, 'u', true);
  await ns.set(`r:${ids[1]}:k`, '{"response":');
  const err = await t.throwsAsync(expandConversation(rs, 'k', await openConversation(rs, 'k', ids[2]!, 1000), budget(1 << 20)));
  t.like(err, { status: 409, code: 'response_unreadable', param: 'previous_response_id' });
  t.regex(err!.message, new RegExp(`'${ids[1]}'`));

  const own = await t.throwsAsync(openConversation(rs, 'k', ids[1]!, 1000));
  t.like(own, { status: 409, code: 'response_unreadable', param: 'previous_response_id' });
  t.like(await t.throwsAsync(rs.get('k', ids[1]!)), { status: 409, param: 'response_id' });
  t.true(await rs.delete('k', ids[1]!));
  t.is(await rs.get('k', ids[1]!), undefined);
});

test('item references: each resolved item counts against the budget; a damaged record resolves nothing', async (t) => {
  const { rs, ns } = await store(t);
  const [id] = await chain(rs, ns, 'k', 1, 'a'.repeat(2000), true);
  const ref = { type: 'item_reference', id: itemId('msg', id!, 0) };
  const refs = Array.from({ length: 10 }, () => ref);
  const resolved = await resolveReferences(refs, 'k', rs, budget(1 << 20));
  t.is(resolved.filter((i) => i.type === 'message').length, 10);
  const err = await t.throwsAsync(resolveReferences(refs, 'k', rs, budget(15_000)));
  t.like(err, { status: 400, code: 'conversation_too_large', param: 'input' });

  await ns.set(`r:${id}:k`, 'garbage');
  t.deepEqual(await resolveReferences([ref], 'k', rs, budget(1 << 20)), [ref]);
});

test("the request's own body counts in UTF-8 bytes; a refused addition counts nothing", async (t) => {
  const { rs } = await store(t);
  const b = new ExpansionBudget(100, 'é'.repeat(30));
  const items = [{ role: 'user', content: 'hi' }];
  t.is(await resolveReferences(items, 'k', rs, b), items, 'nothing to resolve');
  b.check(40, 'input');
  t.throws(() => b.add(41, 'input'), { message: /input: .*max_body_bytes \(100 bytes\)/ });
  t.is(b.used, 60);
  b.add(40, 'input');
  t.is(b.used, 100);
});
