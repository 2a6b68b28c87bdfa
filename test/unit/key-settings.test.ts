/**
 * Virtual key settings (lib/key-settings.ts) and the key table (lib/keys.ts): what the
 * config file and the admin API accept, how a PATCH merges, how expiry is read, how a
 * rotated key's earlier secret is accepted during its grace period, and that records
 * stored before keys had settings are still read.
 */
import test from 'ava';
import { parseConfig } from '../../server/config/load.ts';
import { applyPatch, keyPatchSchema, parseExpiry, unenforcedSettings } from '../../lib/key-settings.ts';
import { hashSecret, keyInfo, KeyTable } from '../../lib/keys.ts';
import { parseKeyRecord } from '../../server/runtime/records.ts';

const SECRET = 'sk-test-secret-0123456789abcdef';

function config(keys: string) {
  return parseConfig(`[keys.a]\nkey = "${SECRET}"\n${keys}`, 'gw.toml', '/tmp/gw.toml');
}

test('[keys.<name>] takes every setting; TOML dates and RFC 3339 strings become UTC RFC 3339', (t) => {
  const cfg = config(`models = ["gpt-4o*", "claude-*"]
requests_per_minute = 60
tokens_per_minute = 100000
budget = 20
budget_period = "monthly"
expires_at = 2027-01-01
tags = { team = "search", env = "prod" }
max_parallel_requests = 4
`);
  t.deepEqual(cfg.keys.a, {
    key: SECRET,
    models: ['gpt-4o*', 'claude-*'],
    requests_per_minute: 60,
    tokens_per_minute: 100000,
    budget: 20,
    budget_period: 'monthly',
    expires_at: '2027-01-01T00:00:00Z',
    tags: { team: 'search', env: 'prod' },
    max_parallel_requests: 4,
  });
  t.is(config('expires_at = 2027-01-01T10:30:00+02:00').keys.a!.expires_at, '2027-01-01T08:30:00Z');
  t.is(config('expires_at = "2027-01-01T10:30:00.250Z"').keys.a!.expires_at, '2027-01-01T10:30:00.250Z');
  t.is(config('expires_at = "2027-06-30"').keys.a!.expires_at, '2027-06-30T00:00:00Z');
});

test('bad settings are config errors naming the key path', (t) => {
  const bad: Array<[string, RegExp]> = [
    ['models = []', /keys\.a\.models: give at least one model/],
    ['requests_per_minute = 0', /keys\.a\.requests_per_minute: expected at least 1 request/],
    ['tokens_per_minute = 1.5', /keys\.a\.tokens_per_minute: expected a whole number of tokens/],
    ['budget = -1', /keys\.a\.budget: expected USD >= 0/],
    ['budget_period = "yearly"', /keys\.a\.budget_period: expected one of daily, weekly, monthly, lifetime/],
    ['expires_at = 2027-01-01T10:00:00', /keys\.a\.expires_at: expected a date-time with an offset/],
    ['expires_at = 10:00:00', /keys\.a\.expires_at: expected a date or a date-time/],
    ['expires_at = "next week"', /keys\.a\.expires_at: expected an RFC 3339 date-time/],
    ['expires_at = "2027-02-30"', /keys\.a\.expires_at: '2027-02-30' is not a calendar date/],
    ['tags = { "bad name" = "x" }', /keys\.a\.tags/],
    ['tags = { team = "" }', /keys\.a\.tags\.team: expected a non-empty tag value/],
    ['max_parallel_requests = 0', /keys\.a\.max_parallel_requests/],
    ['colour = "red"', /keys\.a: unknown key 'colour'/],
  ];
  for (const [line, re] of bad) t.throws(() => config(line), { message: re }, line);
});

test('parseExpiry: offsets, leap days, date-only = 00:00 UTC', (t) => {
  t.is(parseExpiry('2028-02-29'), Date.UTC(2028, 1, 29));
  t.is(parseExpiry('2028-02-29T23:59:59-01:00'), Date.UTC(2028, 2, 1, 0, 59, 59));
  t.is(parseExpiry('2027-01-01 00:00:00Z'), Date.UTC(2027, 0, 1));
  t.regex(String(parseExpiry('2027-02-29')), /not a calendar date/);
  t.regex(String(parseExpiry('2027-01-01T25:00:00Z')), /not a valid time/);
});

test('PATCH is a JSON merge patch: replace, null unsets, tags merge tag by tag', (t) => {
  const before = { models: ['a*'], budget: 5, budget_period: 'daily' as const, tags: { team: 'x', env: 'dev' } };
  const patch = keyPatchSchema.parse({ budget: 10, budget_period: null, tags: { env: null, owner: 'ann' }, requests_per_minute: 30, expires_at: '2027-01-01' });
  t.deepEqual(applyPatch(before, patch), {
    models: ['a*'],
    requests_per_minute: 30,
    budget: 10,
    expires_at: '2027-01-01T00:00:00Z',
    tags: { team: 'x', owner: 'ann' },
  });
  t.deepEqual(applyPatch(before, keyPatchSchema.parse({ tags: null, models: null })), { budget: 5, budget_period: 'daily' });
  t.deepEqual(applyPatch({ tags: { a: '1' } }, keyPatchSchema.parse({ tags: { a: null } })), {});
  t.deepEqual(before.tags, { team: 'x', env: 'dev' }); // not changed in place
  t.false(keyPatchSchema.safeParse({ key: 'sk-…' }).success);
  t.false(keyPatchSchema.safeParse({ name: 'other' }).success);
});

test('KeyInfo: the hot path reads compiled settings; unset means no limit and every model', (t) => {
  const plain = keyInfo('p');
  t.true(plain.allows('anything'));
  t.is(plain.models, undefined);
  t.is(plain.expiresAt, undefined);
  const full = keyInfo('f', {
    models: ['gpt-4o*'],
    requests_per_minute: 5,
    budget: 1,
    budget_period: 'weekly',
    expires_at: '2027-01-01T00:00:00Z',
    tags: { team: 't' },
    max_parallel_requests: 2,
  });
  t.true(full.allows('gpt-4o-mini'));
  t.false(full.allows('claude-x'));
  t.like(full, { requestsPerMinute: 5, budget: 1, budgetPeriod: 'weekly', expiresAt: Date.UTC(2027, 0, 1), maxParallelRequests: 2, tags: { team: 't' } });
  t.true(Object.isFrozen(full));
  // one object shape for every key (V8 keeps the hot path monomorphic)
  t.deepEqual(Object.keys(plain), Object.keys(full));
});

test("KeyTable: a rotated key's earlier secret works until its grace period ends, then never; listings never show secrets", (t) => {
  const now = Date.UTC(2026, 4, 14, 12);
  const oldSecret = 'sk-old-secret-0123456789abcdefgh';
  const newSecret = 'sk-new-secret-0123456789abcdefgh';
  const table = new KeyTable(
    { f: { key: SECRET, expires_at: '2026-05-14T11:00:00Z' } },
    new Map([
      [
        'r',
        {
          hash: hashSecret(newSecret),
          created_at: '2026-05-01T00:00:00.000Z',
          settings: { budget: 3 },
          grace: [{ hash: hashSecret(oldSecret), until: '2026-05-14T12:05:00Z' }],
        },
      ],
    ]),
  );
  t.is(table.lookup(newSecret)?.name, 'r');
  t.is(table.lookup(oldSecret, () => now)?.name, 'r');
  t.is(
    table.lookup(oldSecret, () => now + 5 * 60_000),
    undefined,
  );
  t.is(
    table.lookup('sk-unknown-0123456789abcdefghij', () => now),
    undefined,
  );
  const list = table.list(now);
  t.like(list[0], { name: 'f', source: 'file', expires_at: '2026-05-14T11:00:00Z', expired: true, models: null, budget: null });
  t.like(list[1], {
    name: 'r',
    source: 'runtime',
    budget: 3,
    expired: false,
    previous_key_valid_until: '2026-05-14T12:05:00Z',
    created_at: '2026-05-01T00:00:00.000Z',
  });
  t.false('previous_key_valid_until' in table.list(now + 10 * 60_000)[1]!);
  const text = JSON.stringify(list);
  for (const s of [SECRET, oldSecret, newSecret, hashSecret(oldSecret)]) t.false(text.includes(s));
  t.is(table.info('r')?.budget, 3);
  t.is(table.info('nope'), undefined);
});

test('stored key records: the bare hash of older versions still reads; bad records are refused', (t) => {
  const h = hashSecret(SECRET);
  t.deepEqual(parseKeyRecord(h), { hash: h, settings: {} });
  t.deepEqual(parseKeyRecord(JSON.stringify({ hash: h, created_at: 'x', settings: { budget: 2, future_setting: 1 } })), {
    hash: h,
    created_at: 'x',
    settings: { budget: 2 },
  });
  t.throws(() => parseKeyRecord('{"settings":{}}'), { message: /no key hash/ });
  t.throws(() => parseKeyRecord(JSON.stringify({ hash: h, settings: { models: 'gpt-4o' } })), { message: /invalid settings/ });
});

test('settings no enabled extension enforces are named', (t) => {
  const s = { requests_per_minute: 1, budget: 2, models: ['x'], max_parallel_requests: 1 };
  t.deepEqual(unenforcedSettings('k', s, new Set(['requests_per_minute', 'tokens_per_minute'])), [
    "key 'k' sets budget, but no enabled extension enforces it: add [extensions.budget] to the config (then restart)",
  ]);
  t.deepEqual(unenforcedSettings('k', s, new Set(['requests_per_minute', 'budget'])), []);
});
