import test from 'ava';
import { pino } from 'pino';
import { affinityId, affinityPrefix, leadingContent } from '../../lib/common/affinity.ts';
import type { Provider } from '../../lib/provider.ts';
import { AffinityTable, affinityKey } from '../../lib/resilience/affinity.ts';
import { Member } from '../../lib/resilience/member.ts';
import { Group } from '../../lib/resilience/strategy.ts';
import type { Store } from '../../lib/store/types.ts';

const log = pino({ level: 'silent' });
const member = (name: string) =>
  new Member({ name, kind: 'x', models: ['m'] } as unknown as Provider, { maxRetries: 0, weight: 1 }, { failures: 1, cooldownMs: 60_000 });
const settings = (max = 100, ttl = 3600) => ({ affinity_max_entries: max, affinity_ttl_seconds: ttl });

test('a conversation maps to the member that served it; a member whose circuit is not closed is not kept', async (t) => {
  const a = member('a');
  const b = member('b');
  const group = new Group([a, b], 'round_robin', true);
  const table = new AffinityTable(undefined, log);
  t.is(await table.pick('k', group, settings()), undefined);
  table.record('k', 'b', settings());
  t.is(await table.pick('k', group, settings()), b);
  t.deepEqual(group.orderFrom(b), [b, a]);
  b.breaker.failure(Date.now());
  t.is(b.breaker.state, 'open');
  t.is(await table.pick('k', group, settings()), undefined, 'an open member gives the request to the strategy');
  table.record('k', 'a', settings());
  t.is(await table.pick('k', group, settings()), a, 'the member that answered instead is kept from then on');
  // a provider no longer in the group (a reload removed it)
  table.record('gone', 'c', settings());
  t.is(await table.pick('gone', group, settings()), undefined);
});

test('the local table is bounded (least recently used dropped first) and forgets a conversation idle past the TTL', async (t) => {
  let now = 1_000_000;
  const a = member('a');
  const group = new Group([a, member('b')], 'round_robin', true);
  const table = new AffinityTable(undefined, log, () => now);
  const s = settings(4, 10);
  for (const k of ['k1', 'k2', 'k3']) table.record(k, 'a', s);
  t.is(await table.pick('k1', group, s), a); // k1 is now more recent than k2
  table.record('k4', 'a', s);
  t.true(table.size <= 4);
  t.is(await table.pick('k2', group, s), undefined, 'the least recently used went first');
  t.is(await table.pick('k1', group, s), a);
  for (let i = 0; i < 1000; i++) {
    table.record(`n${i}`, 'a', s);
    t.true(table.size <= 4);
  }
  table.record('k1', 'a', s);
  now += 9_000;
  t.is(await table.pick('k1', group, s), a, 'a turn within the TTL keeps it (and restarts its idle time)');
  now += 9_000;
  t.is(await table.pick('k1', group, s), a);
  now += 10_001;
  t.is(await table.pick('k1', group, s), undefined, 'idle past the TTL');
});

test('with a shared store: read on a local miss, written when the mapping changes, not on every turn', async (t) => {
  const kv = new Map<string, string>();
  let sets = 0;
  let gets = 0;
  const store = {
    get: async (k: string) => {
      gets++;
      return kv.get(k);
    },
    set: async (k: string, v: string, o?: { ttlMs?: number }) => {
      sets++;
      t.is(o?.ttlMs, 3_600_000);
      kv.set(k, v);
    },
  } as unknown as Store;
  const a = member('a');
  const b = member('b');
  const group = new Group([a, b], 'round_robin', true);
  const one = new AffinityTable(store, log);
  const two = new AffinityTable(store, log);
  t.is(await one.pick('k', group, settings()), undefined);
  one.record('k', 'b', settings());
  for (let i = 0; i < 5; i++) {
    t.is(await one.pick('k', group, settings()), b);
    one.record('k', 'b', settings());
  }
  t.is(sets, 1, 'one write for the new mapping, none per turn');
  t.is(gets, 1, 'one read: the first miss');
  t.is(await two.pick('k', group, settings()), b, 'another instance reads it on its miss');
  t.is(gets, 2);
  one.record('k', 'a', settings());
  t.is(sets, 2, 'a moved conversation is written at once');
});

test('a store failure is a miss, never a failed request', async (t) => {
  const store = { get: async () => Promise.reject(new Error('down')), set: async () => Promise.reject(new Error('down')) } as unknown as Store;
  const group = new Group([member('a'), member('b')], 'round_robin', true);
  const table = new AffinityTable(store, log);
  t.is(await table.pick('k', group, settings()), undefined);
  table.record('k', 'a', settings());
  await new Promise((r) => setImmediate(r));
  t.is(await table.pick('k', group, settings()), group.members[0]);
});

test('a group keeps affinity only when configured and there is a choice', (t) => {
  t.false(new Group([member('a')], 'round_robin', true).affinity);
  t.false(new Group([member('a'), member('b')], 'round_robin', false).affinity);
  t.true(new Group([member('a'), member('b')], 'weighted', true).affinity);
});

test('the key: per gateway key and model, bounded whatever the source', (t) => {
  const k = affinityKey('default', 'm', 'prompt_cache_key\0abc');
  t.is(k.length, 27);
  t.not(k, affinityKey('second', 'm', 'prompt_cache_key\0abc'));
  t.not(k, affinityKey('default', 'm2', 'prompt_cache_key\0abc'));
  t.is(affinityKey('default', 'm', 'x'.repeat(1_000_000)).length, 27);
});

test('sources: an explicit id names its field; the prefix reads strings and text parts, bounded at both ends', (t) => {
  t.is(affinityId('user', 'u1'), 'user\0u1');
  t.is(affinityId('user', ''), undefined);
  t.is(affinityId('user', 42), undefined);
  t.not(affinityId('user', 'x'), affinityId('prompt_cache_key', 'x'));
  t.is(affinityPrefix(undefined, []), undefined);
  t.is(affinityPrefix('sys', 'hi'), affinityPrefix([{ type: 'text', text: 'sys' }], [{ text: 'h' }, { type: 'image' }, { text: 'i' }]));
  t.not(affinityPrefix('sys', 'hi'), affinityPrefix('sys', 'ho'));
  // a long prompt: its middle is not read, its head and tail are
  const long = (mid: string, tail = 'end') => `${'a'.repeat(5000)}${mid}${'b'.repeat(5000)}${tail}`;
  t.is(affinityPrefix('s', long('one')), affinityPrefix('s', long('two')));
  t.not(affinityPrefix('s', long('one')), affinityPrefix('s', long('one', 'END')));
  const parts = (tail: string) => [...Array.from({ length: 500 }, (_, i) => ({ text: `part ${i} `.repeat(20) })), { text: tail }];
  t.not(affinityPrefix('s', parts('x')), affinityPrefix('s', parts('y')));
  t.true(affinityPrefix('s', parts('x'))!.length < 2 * 256 + 20);
});

test('leadingContent: the first message of a role among the first 16', (t) => {
  const ms = [{ role: 'system', content: 's' }, null, { role: 'user', content: 'u' }, { role: 'user', content: 'v' }];
  t.is(leadingContent(ms, 'user'), 'u');
  t.is(leadingContent(ms, 'developer'), undefined);
  t.is(leadingContent('nope', 'user'), undefined);
  t.is(leadingContent([{ parts: ['p'] }], 'user', 'parts', true)?.toString(), 'p');
  const late = [...Array.from({ length: 16 }, () => ({ role: 'assistant', content: 'a' })), { role: 'user', content: 'u' }];
  t.is(leadingContent(late, 'user'), undefined);
});
