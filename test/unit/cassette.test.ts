/**
 * The cassette kit's pieces (protocols/cassette/) and the seams record and replay stand on:
 * canonical bodies, JSON paths and differences, matching (exact, sequence, ignore, the nearest
 * recording of a miss), the header allow-list, routes without query secrets, the key-format
 * detector and the scrubber, reading (a cut last line, a bad line), the writer's bounded queue,
 * the replay transport under undici (backpressure, abort, recorded failures), the exchange
 * observer seam, and a miss never being retried.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Agent, request } from 'undici';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalBody, canonicalJson, hashOf } from '../../protocols/cassette/canonical.ts';
import type { CassetteEntry } from '../../protocols/cassette/entry.ts';
import { REPLAY_MISS } from '../../protocols/cassette/errors.ts';
import { headerLists } from '../../protocols/cassette/headers.ts';
import { compilePath, firstDifference, removePath } from '../../protocols/cassette/json-path.ts';
import { conversationStart, Matcher } from '../../protocols/cassette/matcher.ts';
import { type CassetteLine, readCassette } from '../../protocols/cassette/reader.ts';
import { routeOf } from '../../protocols/cassette/route.ts';
import { ReplayTransport } from '../../protocols/cassette/transport.ts';
import { CassetteWriter } from '../../protocols/cassette/writer.ts';
import { observedDispatcher, upstreamSettings, type ExchangeStart } from '../../lib/http/exchange.ts';
import { apiKeysOf, NO_SECRETS, SecretRedactor } from '../../lib/redact.ts';
import { classify } from '../../lib/resilience/retry.ts';
import { keyFormats } from '../../lib/secrets/key-formats.ts';
import { createScrubber } from '../../lib/secrets/scrubber.ts';

const identity = (text: string) => text;

function entry(
  body: unknown,
  response: CassetteEntry['response'],
  route = 'POST /v1/chat/completions',
  id = `e-${Math.random().toString(16).slice(2)}`,
): CassetteEntry {
  const c = canonicalBody(JSON.stringify(body), identity);
  return {
    v: 1,
    id,
    time: '2025-01-01T00:00:00.000Z',
    provider: 'p',
    kind: 'openai',
    upstream: {},
    route,
    request: { headers: {}, body: c.body, hash: c.hash },
    response,
    duration_ms: 1,
  };
}

const lineOf = (e: CassetteEntry, line = 1): CassetteLine => ({ entry: e, file: 'c.jsonl', line });

function take(m: Matcher, route: string, body: unknown) {
  return m.take(route, canonicalBody(JSON.stringify(body), identity).text);
}

test('canonical JSON sorts keys at every level: bodies that mean the same hash the same', (t) => {
  t.is(canonicalJson({ b: 1, a: [{ d: 2, c: 'x' }], e: undefined }), '{"a":[{"c":"x","d":2}],"b":1}');
  const a = canonicalBody('{"model":"m","messages":[{"role":"user","content":"hi"}]}', identity);
  const b = canonicalBody('{ "messages": [ {"content": "hi", "role": "user"} ], "model": "m" }', identity);
  t.is(a.hash, b.hash);
  t.is(a.hash, hashOf(a.text));
  t.deepEqual(canonicalBody(undefined, identity), { body: null, text: '', hash: hashOf('') });
  t.is(canonicalBody('not json', (s) => s.toUpperCase()).body, 'NOT JSON');
});

test('JSON paths: members, items, wildcards; removal keeps item positions; a bad path is named', (t) => {
  const body = {
    temperature: 0.3,
    metadata: { a: 1, b: 2 },
    messages: [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
    ],
  };
  for (const p of ['temperature', 'metadata.*', 'messages[*].content', 'messages.0']) removePath(body, compilePath(p));
  t.deepEqual(body, { metadata: {}, messages: ['(ignored)', { role: 'user' }] });
  t.throws(() => compilePath('.a'), { message: /JSON path '\.a'/ });
  t.throws(() => compilePath(''), { message: /empty/ });
});

test('the first difference names its path and quotes both sides, cut to 200 characters around it', (t) => {
  t.deepEqual(firstDifference({ a: 1, m: [{ c: 'x' }] }, { a: 1, m: [{ c: 'y' }] }), { path: 'm[0].c', recorded: '"x"', got: '"y"', count: 1 });
  t.like(firstDifference({ a: 1 }, { a: 1, b: true }), { path: 'b', recorded: '(absent)', got: 'true' });
  t.is(firstDifference({ a: [1, 2] }, { a: [1, 2] }), undefined);
  const long = 'x'.repeat(1000);
  const d = firstDifference({ s: `${long}A${long}` }, { s: `${long}B${long}` })!;
  t.true(d.recorded.startsWith('…"') && d.recorded.includes('A') && d.recorded.length <= 203, d.recorded);
  t.true(d.got.includes('B'));
});

test('exact: identical requests take identical recordings in order, then the last again; a miss names the nearest and the path', (t) => {
  const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
  const first = entry(body, { status: 500, body: {} });
  const second = entry(body, { status: 200, body: {} });
  const other = entry({ model: 'm', messages: [{ role: 'user', content: 'other' }], temperature: 1 }, { status: 200, body: {} });
  const m = new Matcher([lineOf(first, 1), lineOf(second, 2), lineOf(other, 3)]);
  t.is(take(m, first.route, body)?.entry, first);
  t.is(take(m, first.route, { messages: [{ content: 'hi', role: 'user' }], model: 'm' })?.entry, second, 'key order does not matter');
  t.is(take(m, first.route, body)?.entry, second);
  t.is(take(m, 'POST /v1/embeddings', body), undefined, 'the route is part of the match');
  const changed = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };
  t.is(take(m, first.route, changed), undefined);
  const miss = m.explain(first.route, canonicalBody(JSON.stringify(changed), identity).text);
  t.is(miss.nearest?.entry, first);
  t.deepEqual([miss.path, miss.recorded, miss.got], ['messages[0].content', '"hi"', '"hello"']);
  t.deepEqual(m.explain('GET /v1/models', '').path, 'route');
  t.deepEqual([...m.used].sort(), [first.id, second.id].sort());
});

test('ignore leaves paths out of the match; sequence matches the n-th call of a conversation and then misses', (t) => {
  const rec = (content: string, extra = {}) =>
    entry(
      {
        model: 'm',
        temperature: 0.1,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'tool', content },
        ],
        ...extra,
      },
      { status: 200, body: { n: content } },
    );
  const a = rec('t1');
  const b = rec('t2');
  const ignoring = new Matcher([lineOf(a)], { ignore: ['temperature'] });
  t.is(
    take(ignoring, a.route, {
      model: 'm',
      temperature: 0.9,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'tool', content: 't1' },
      ],
    })?.entry,
    a,
  );
  const seq = new Matcher([lineOf(a, 1), lineOf(b, 2)], { mode: 'sequence' });
  const call = (content: string) =>
    take(seq, a.route, {
      model: 'm',
      temperature: 0.1,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'tool', content },
      ],
    });
  t.is(call('changed 1')?.entry, a);
  t.is(call('changed 2')?.entry, b);
  t.is(call('changed 3'), undefined);
  t.regex(
    seq.explain(a.route, canonicalBody(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'go' }] }), identity).text).reason,
    /had 2 recorded calls and this is call 3/,
  );
  // a conversation that starts otherwise is explained by its start, not by the rest of the body
  const other = seq.explain(
    a.route,
    canonicalBody(JSON.stringify({ model: 'm', temperature: 0.9, messages: [{ role: 'user', content: 'stop' }] }), identity).text,
  );
  t.deepEqual([other.reason, other.path, other.got], ['no recording of this conversation', 'messages[0].content', '"stop"']);
  t.deepEqual(conversationStart({ model: 'm', system: 's', tools: [1], messages: [{ role: 'system' }, { role: 'user', n: 1 }, { role: 'assistant' }] }), {
    model: 'm',
    system: 's',
    messages: [{ role: 'system' }, { role: 'user', n: 1 }],
  });
});

test('headers: an allow-list; credentials, cookies, project and organization ids never, not even when asked for', (t) => {
  const lists = headerLists(['x-trace']);
  t.deepEqual(
    lists.request.keep({ authorization: 'Bearer x', 'x-api-key': 'k', 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-trace': 't' }),
    {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'x-trace': 't',
    },
  );
  t.deepEqual(
    lists.response.keep({
      'set-cookie': ['a', 'b'],
      'openai-project': 'p',
      'openai-organization': 'o',
      'x-ratelimit-remaining-tokens': '9',
      'retry-after': '1',
    }),
    {
      'x-ratelimit-remaining-tokens': '9',
      'retry-after': '1',
    },
  );
  for (const h of ['x-api-key', 'Cookie', 'openai-project', 'x-goog-user-project', 'api-key']) t.throws(() => headerLists([h]), { message: new RegExp(h) });
});

test('routes keep the query parameters that select an operation, never a key', (t) => {
  t.is(routeOf('post', '/v1beta/models/g:streamGenerateContent?alt=sse&key=AIzaSECRET'), 'POST /v1beta/models/g:streamGenerateContent?alt=sse');
  t.is(routeOf('GET', '/v1/models?token=x'), 'GET /v1/models');
});

test('the key-format detector finds vendor keys by their shape, inside JSON text too; the scrubber adds known secrets and more detectors', (t) => {
  const keys = [
    'sk-proj-aaaaaaaaaaaaaaaaaaaaaaaa',
    'sk-ant-api03-bbbbbbbbbbbbbbbbbbbbbbbbbb',
    `AIza${'c'.repeat(35)}`,
    '0123456789abcdef0123456789abcdef.AbCdEfGhIjKlMnOp',
    'AKIAIOSFODNN7EXAMPLE',
    `ghp_${'d'.repeat(36)}`,
  ];
  const text = JSON.stringify({ prompt: `first line\n${keys.join(' and ')}` });
  const found = keyFormats.find(text).map((m) => m.type);
  t.deepEqual(found, ['openai_key', 'anthropic_key', 'google_api_key', 'zhipu_key', 'aws_access_key_id', 'github_token']);
  t.deepEqual(keyFormats.find(`a risk-assessment-framework-document-v2, desk-123, ${'f'.repeat(64)}.tar and AKIAIOSFODNN7EXAMPLEX`), []);
  let known = new SecretRedactor(['plain-secret-value-1']);
  const scrubber = createScrubber(() => known);
  scrubber.addDetector({ name: 'codenames', find: (s) => [...s.matchAll(/zebra/g)].map((m) => ({ start: m.index, end: m.index + 5, type: 'codename' })) });
  const once = scrubber.scrub(`plain-secret-value-1 ${keys[0]} zebra`);
  t.is(once, '[redacted] [redacted:openai_key] [redacted:codename]');
  t.is(scrubber.scrub(once), once, 'idempotent');
  known = NO_SECRETS;
  t.is(scrubber.scrub('plain-secret-value-1'), 'plain-secret-value-1', 'the known secrets are read at each call');
  t.deepEqual(apiKeysOf({ api_key: 'a', upstream: { api_key: 'b', deeper: { api_key: 'c' } }, models: ['x'] }), ['a', 'b', 'c']);
});

test('upstream settings show observers no secret and no origin', (t) => {
  t.deepEqual(
    upstreamSettings({
      kind: 'dashscope',
      api_key: 'sk-x',
      base_url: 'http://user:pw@10.0.0.5:8000/compatible-mode/v1?key=s',
      organization: 'org-1',
      headers: { a: 1 },
      models: ['m'],
      timeout_seconds: 30,
    }),
    { kind: 'dashscope', base_url: 'https://upstream.invalid/compatible-mode/v1', timeout_seconds: 30 },
  );
});

test('reading: a cut last line is ignored, any other bad line skipped with its line number; the writer ends a cut line before appending', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-cassette-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'c.jsonl');
  const good = JSON.stringify(entry({ a: 1 }, { status: 200, body: {} }));
  writeFileSync(file, `${good}\nnot json\n${JSON.stringify({ v: 1 })}\n${good}\n${good.slice(0, 40)}`);
  const c = await readCassette(file);
  t.is(c.entries.length, 2);
  t.deepEqual(
    c.skipped.map((s) => s.line),
    [2, 3],
  );
  t.deepEqual(c.cut, [file]);
  const w = await CassetteWriter.open(file);
  w.append(good);
  await w.close();
  const again = await readCassette(file);
  t.is(again.entries.length, 3);
  t.deepEqual(again.cut, []);
  t.is(again.skipped.length, 3, 'the cut line became a bad line of its own, not part of the next');
  t.true(readFileSync(file, 'utf8').endsWith(`${good}\n`));
  // a folder reads every .jsonl below it, in path order
  writeFileSync(join(dir, 'b.jsonl'), `${good}\n`);
  appendFileSync(join(dir, 'notes.txt'), 'x');
  t.is((await readCassette(dir)).entries.length, 4);
  t.deepEqual((await readCassette(join(dir, 'none.jsonl'), { missingOk: true })).entries, []);
  await t.throwsAsync(readCassette(join(dir, 'none.jsonl')), { message: /cannot read cassette .*none\.jsonl: ENOENT/ });
});

test('the writer never waits: in the background its queue is bounded and what does not fit is dropped and counted', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-cassette-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'q.jsonl');
  const w = await CassetteWriter.open(file, { background: true, maxQueueBytes: 100 });
  const results = Array.from({ length: 10 }, (_, i) => w.append(`{"n":${i},"pad":"${'x'.repeat(20)}"}`));
  t.true(results.some((r) => !r));
  await w.close();
  t.is(w.written + w.dropped, 10);
  t.true(w.dropped > 0);
  t.is(readFileSync(file, 'utf8').trim().split('\n').length, w.written);
  t.false(w.append('{}'), 'closed');
});

/** A transport answering `entries` through undici's own request(), as an upstream client would. */
function transport(entries: CassetteEntry[], speed = 0) {
  const matcher = new Matcher(entries.map((e, i) => lineOf(e, i + 1)));
  return new ReplayTransport({ cassette: 'c.jsonl', provider: 'p', matcher, scrub: identity, speed });
}

test('the replay transport plays a stream event by event under undici, honours backpressure and abort, and replays failures', async (t) => {
  const events = Array.from({ length: 2000 }, (_, i) => ({ delay_ms: 0, data: JSON.stringify({ i, pad: 'x'.repeat(100) }) }));
  const stream = entry({ q: 'stream' }, { status: 200, headers: { 'content-type': 'text/event-stream' }, events, complete: true });
  const cut = entry({ q: 'cut' }, { status: 200, headers: { 'content-type': 'text/event-stream' }, events: events.slice(0, 2), complete: false });
  const down = entry({ q: 'down' }, { error: { kind: 'connect', message: 'ECONNREFUSED' } });
  const paced = entry(
    { q: 'paced' },
    {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      events: [
        { delay_ms: 0, data: '1' },
        { delay_ms: 5000, data: '2' },
      ],
      complete: true,
    },
  );
  const d = transport([stream, cut, down, paced], 1);
  const post = (q: string, signal?: AbortSignal) =>
    request('http://upstream.invalid/v1/chat/completions', { dispatcher: d, method: 'POST', body: JSON.stringify({ q }), signal });

  const res = await post('stream');
  t.is(res.statusCode, 200);
  const text = await res.body.text();
  t.is(text.split('\n\n').filter(Boolean).length, 2000);
  t.true(text.startsWith('data: {"i":0,'));

  // a handler that pauses gets nothing more until it resumes (event by event: a paced playback with no delays)
  const got: number[] = [];
  let resume: (() => void) | undefined;
  let ended = false;
  transport([stream], 1).dispatch(
    { method: 'POST', path: '/v1/chat/completions', origin: 'http://upstream.invalid', body: JSON.stringify({ q: 'stream' }) },
    {
      onResponseData(controller, chunk) {
        got.push(chunk.length);
        if (got.length === 3) {
          controller.pause();
          resume = () => controller.resume();
        }
      },
      onResponseEnd: () => {
        ended = true;
      },
    },
  );
  await new Promise((r) => setTimeout(r, 20));
  t.is(got.length, 3);
  t.false(ended);
  resume!();
  t.is(got.length, 2000);
  t.true(ended);
  // at speed 0 the same events come in reads of up to 64 KiB
  const reads: number[] = [];
  transport([stream]).dispatch(
    { method: 'POST', path: '/v1/chat/completions', origin: 'http://upstream.invalid', body: JSON.stringify({ q: 'stream' }) },
    { onResponseData: (_c, chunk) => void reads.push(chunk.length) },
  );
  t.true(reads.length > 1 && reads.every((n) => n <= 65_536), String(reads));
  t.is(
    reads.reduce((a, b) => a + b, 0),
    Buffer.byteLength(text),
  );

  const cutRes = await post('cut');
  await t.throwsAsync(cutRes.body.text(), { message: /replayed/ });
  await t.throwsAsync(post('down'), { code: 'ECONNREFUSED' });

  const ac = new AbortController();
  const pacedRes = await post('paced', ac.signal);
  const t0 = performance.now();
  setTimeout(() => ac.abort(new Error('client gone')), 50);
  await t.throwsAsync(pacedRes.body.text());
  t.true(performance.now() - t0 < 2000, 'the abort stopped the 5 s wait');

  const miss = await post('nothing').catch((e) => e);
  t.true(REPLAY_MISS.is(miss));
  t.regex(miss.message, /^replay_miss: provider p found no recording in cassette c\.jsonl for POST \/v1\/chat\/completions/);
  t.is(classify(miss), 'fail', 'a miss is not retried, nor moved to another provider');
  t.notRegex(miss.logMessage, /recorded "/, 'the log keeps the path, not the values');
});

test('exchange observers hear every exchange through the pool, a failing one never breaks it, and closing leaves the pool open', async (t) => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'a=b' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const pool = new Agent();
  t.teardown(async () => {
    await pool.close();
    server.close();
  });
  const observers: Array<(ex: ExchangeStart) => ReturnType<Parameters<typeof observedDispatcher>[1][number]>> = [];
  const d = observedDispatcher(pool, observers, { provider: 'p', kind: 'openai', settings: {} });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x?key=s`;
  t.is(((await (await request(url, { dispatcher: d, method: 'POST', body: '{"a":1}' })).body.json()) as { ok: boolean }).ok, true);
  const seen: string[] = [];
  observers.push(() => {
    throw new Error('observer bug');
  });
  observers.push((ex) => {
    seen.push(`${ex.method} ${ex.path} ${ex.body}`);
    return {
      response: (status) => seen.push(String(status)),
      data: () => {
        throw new Error('sink bug');
      },
      end: () => seen.push('end'),
      error: () => seen.push('error'),
    };
  });
  const res = await request(url, { dispatcher: d, method: 'POST', body: '{"a":2}', headers: { authorization: 'Bearer k' } });
  t.deepEqual(await res.body.json(), { ok: true });
  t.deepEqual(seen, ['POST /v1/x?key=s {"a":2}', '200'], 'a sink that throws hears nothing more');
  await d.close();
  t.is((await request(url, { dispatcher: pool, method: 'GET' })).statusCode, 200, 'the pool is still open');
});
