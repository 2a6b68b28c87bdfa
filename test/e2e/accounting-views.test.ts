/**
 * The request log, `/v1/usage` and `/v1/budget` agree for every way a request ends (issue
 * 23 item 6), on every client format: a JSON answer, a cache hit, an early answer by a hook,
 * refusals (400, 401, 403, 404, 413, 429), an upstream 4xx or 5xx before the first byte (a
 * retry and a fallback included), a timeout before it, a whole stream, and streams that
 * fail (an error event before gw's first byte; after it: the upstream cuts, sends an error
 * event, goes silent past the timeout, or the client leaves), each on three upstream kinds
 * (anthropic, openai, gemini: every client format reaches one natively — Messages, chat
 * completions and Responses, Gemini — and the other two translated).
 *
 * Each case runs under its own gateway key, so its tokens and cost in the request log must
 * equal its key's entries in /v1/usage and its spend in /v1/budget (nothing held). A case
 * that must count nothing (a refusal, a failure before the first byte, a cache hit) counts
 * 0 everywhere; a case that must count something counts more than 0. And every log entry
 * splits its time: latency_ms = upstream_ms + overhead_ms, with the slow upstream's time
 * (every answer waits SLOW_MS) in upstream_ms, not in overhead_ms.
 */
import test from 'ava';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type Behaviour, GAP_MS, type Kind, MARKER, SLOW_MS, viewsUpstream } from './views-upstream.ts';

const KINDS: Kind[] = ['anthropic', 'openai', 'gemini'];
const FORMATS = ['chat', 'messages', 'responses', 'gemini'] as const;
type Format = (typeof FORMATS)[number];
const TIMEOUT_S = 5;
/** undici checks its timeouts on a ~0.5 s tick: a timeout may fire up to that much early. */
const TIMED_OUT_MS = TIMEOUT_S * 1000 - 500;
const MAX_BODY = 200_000;
/** Requests in flight at once. */
const PARALLEL = 48;

/** A case: one or two requests under the case's own key, and what the views must show. */
interface Case {
  name: string;
  /** The `x-request-id`s of the requests accounted to the case's key (default: its name). */
  ids?: string[];
  /** The gateway key's name (`c<n>`) and secret. */
  key: string;
  secret: string;
  /** Extra settings of the key (`budget = 0`…). */
  settings?: string;
  run(c: Case): Promise<number[]>;
  /** HTTP statuses the client gets, one per request; undefined: not checked. */
  statuses?: number[];
  /** true: some tokens are counted; false: none; undefined: either, as long as the views agree. */
  counts: boolean | undefined;
  /**
   * The least time the upstream certainly took, ms (its delays, retries, timeouts): the
   * entry's upstream_ms must hold at least that; undefined: no upstream call (upstream_ms null).
   */
  waits?: number;
}

const secretOf = (n: number) => `sk-views-case-${n}-0123456789abcdefghijklmnopqrstuvwxyz`;

/** The body and path of a `format` request for `model`; `text` makes it unique (no case hits another's cache entry). */
function request(format: Format, model: string, stream: boolean, text: string): { path: string; body: Record<string, unknown> } {
  const messages = [{ role: 'user', content: text }];
  switch (format) {
    case 'chat':
      return { path: '/v1/chat/completions', body: { model, messages, max_tokens: 50, stream } };
    case 'messages':
      return { path: '/v1/messages', body: { model, messages, max_tokens: 50, stream } };
    case 'responses':
      return { path: '/v1/responses', body: { model, input: text, max_output_tokens: 50, stream, store: false } };
    case 'gemini':
      return {
        path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        body: { contents: [{ role: 'user', parts: [{ text }] }], generationConfig: { maxOutputTokens: 50 } },
      };
  }
}

/** A body the format refuses (400 naming the field). */
const INVALID: Record<Format, Record<string, unknown>> = {
  chat: { messages: 'hi', max_tokens: 5 },
  messages: { messages: 'hi', max_tokens: 5 },
  responses: { input: 5 },
  gemini: { contents: 5 },
};

/**
 * Sends a request; streams are read to their end, or until gw's first bytes carried the
 * marker when `leave` (then the client goes away). Returns the HTTP status.
 */
async function send(gw: TestGateway, id: string, secret: string, path: string, body: unknown, leave = false): Promise<number> {
  const ac = new AbortController();
  const r = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    signal: ac.signal,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'x-request-id': id },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  if (!leave) {
    await r.arrayBuffer();
    return r.status;
  }
  const reader = r.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(MARKER)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  ac.abort();
  return r.status;
}

/** The whole table: every ending on every format (and upstream kind, where one is called). */
function cases(gw: () => TestGateway): Case[] {
  const out: Case[] = [];
  const add = (c: Omit<Case, 'key' | 'secret'>) => {
    const n = out.length;
    out.push({ ...c, key: `c${n}`, secret: secretOf(n) });
  };
  /** One request of `format` to `model`, unique by the case's name. */
  const one =
    (format: Format, model: string, stream: boolean, opts: { leave?: boolean; body?: unknown; secret?: string } = {}) =>
    async (c: Case) => {
      const r = request(format, model, stream, `case ${c.name}`);
      return [await send(gw(), c.name, opts.secret ?? c.secret, r.path, opts.body ?? r.body, opts.leave)];
    };
  for (const f of FORMATS) {
    const at = (what: string) => `${f}:${what}`;
    const ok = 'anthropic-ok';
    add({
      name: at('invalid'),
      run: one(f, ok, false, { body: { ...INVALID[f], ...(f === 'gemini' ? {} : { model: ok }) } }),
      statuses: [400],
      counts: false,
    });
    add({ name: at('nokey'), run: one(f, ok, false, { secret: 'sk-not-a-key-0123456789abcdefghijklmnop' }), statuses: [401], counts: false });
    add({ name: at('not-allowed'), settings: 'models = ["nothing-*"]', run: one(f, ok, false), statuses: [403], counts: false });
    add({ name: at('not-priced'), run: one(f, 'anthropic-unpriced', false), statuses: [403], counts: false });
    add({ name: at('unknown'), run: one(f, 'no-such-model', false), statuses: [404], counts: false });
    add({
      name: at('too-large'),
      run: async (c) => {
        const r = request(f, ok, false, 'x'.repeat(MAX_BODY));
        return [await send(gw(), c.name, c.secret, r.path, r.body)];
      },
      statuses: [413],
      counts: false,
    });
    add({ name: at('budget'), settings: 'budget = 0', run: one(f, ok, false), statuses: [429], counts: false });
    add({ name: at('early'), run: one(f, 'anthropic-denied', false), statuses: [451], counts: false });
    // the first is answered (and counts), the second is over the key's one request a minute
    add({
      name: at('rate'),
      settings: 'requests_per_minute = 1',
      ids: [at('rate'), at('rate:2')],
      run: async (c) => [...(await one(f, ok, false)(c)), ...(await one(f, ok, false)({ ...c, name: `${c.name}:2` }))],
      statuses: [200, 429],
      counts: true,
      waits: SLOW_MS,
    });
    // the same body under another key: a cache hit, which counts nothing for its key
    add({
      name: at('cache'),
      run: async (c) => {
        const r = request(f, ok, false, `cached ${c.name}`);
        const miss = out.find((x) => x.name === `${c.name}-miss`)!;
        const first = await send(gw(), `${c.name}-miss`, miss.secret, r.path, r.body);
        return [first, await send(gw(), c.name, c.secret, r.path, r.body)];
      },
      statuses: [200, 200],
      counts: false,
    });
    // the cache case's first request, accounted to this key (run by the case above)
    add({ name: at('cache-miss'), run: async () => [], counts: true, waits: SLOW_MS });
    for (const k of KINDS) {
      const on = (b: Behaviour, stream: boolean) => `${f}:${k}-${b}${stream ? ':stream' : ''}`;
      const upstreamCase = (b: Behaviour, stream: boolean, statuses: number[] | undefined, counts: boolean | undefined, waits: number, leave = false) =>
        add({ name: on(b, stream), run: one(f, `${k}-${b}`, stream, { leave }), statuses, counts, waits });
      upstreamCase('ok', false, [200], true, SLOW_MS);
      upstreamCase('ok', true, [200], true, SLOW_MS + 3 * GAP_MS);
      // no usage reported: gw's estimate, in every view (a Messages answer reads as 0 tokens where
      // the translation fills Anthropic's always-present usage in: 0 in every view then)
      upstreamCase('bare', false, [200], k === 'anthropic' ? undefined : true, SLOW_MS);
      upstreamCase('bare', true, [200], k === 'anthropic' ? undefined : true, SLOW_MS + 3 * GAP_MS);
      for (const stream of [false, true]) {
        upstreamCase('e4xx', stream, [400], false, SLOW_MS);
        // retried once (max_retries = 1), then 502
        upstreamCase('e5xx', stream, [502], false, 2 * SLOW_MS);
        upstreamCase('hang', stream, [504], false, TIMED_OUT_MS);
      }
      // before gw's first byte on some formats (nothing counts), after it on others (what it streamed)
      upstreamCase('startfail', true, undefined, undefined, SLOW_MS);
      upstreamCase('cut', true, [200], true, SLOW_MS + GAP_MS);
      upstreamCase('errev', true, [200], true, SLOW_MS + GAP_MS);
      upstreamCase('stall', true, [200], true, SLOW_MS + GAP_MS + TIMED_OUT_MS);
      upstreamCase('gone', true, [200], true, SLOW_MS + GAP_MS, true);
    }
    // a 500, retried, then the fallback model answers (priced at its own rate; without one, at the requested model's)
    for (const model of ['anthropic-fb', 'anthropic-fb.np'])
      for (const stream of [false, true])
        add({ name: `${f}:${model}${stream ? ':stream' : ''}`, run: one(f, model, stream), statuses: [200], counts: true, waits: 3 * SLOW_MS });
    // an alias priced under its own name, for a model that has no price of its own
    add({ name: at('priced-alias'), run: one(f, 'priced-alias', false), statuses: [200], counts: true, waits: SLOW_MS });
  }
  return out;
}

/** The models each kind serves, one per behaviour, and their prices (all different, so a wrong price shows). */
function providersToml(origin: string): string {
  const behaviours: Behaviour[] = ['ok', 'bare', 'e4xx', 'e5xx', 'fb', 'hang', 'startfail', 'cut', 'errev', 'stall', 'gone'];
  const section = (k: Kind, kind: string, base: string, extra: string[] = []) => {
    const models = [...behaviours.map((b) => `${k}-${b}`), ...extra];
    return `[providers.${k}]\nkind = "${kind}"\napi_key = "sk-upstream-views-0123456789"\nbase_url = "${base}"\nmax_retries = 1\ntimeout_seconds = ${TIMEOUT_S}\nmodels = ${JSON.stringify(models)}\n`;
  };
  let pricing = '';
  let i = 0;
  for (const k of KINDS)
    for (const b of behaviours) {
      i++;
      pricing += `[pricing."${k}-${b}"]\ninput_per_mtok = ${i}\noutput_per_mtok = ${3 * i + 1}\n`;
    }
  // `.np`: no price of its own
  for (const m of ['anthropic-denied', 'anthropic-fb.np', 'priced-alias']) pricing += `[pricing."${m}"]\ninput_per_mtok = ${++i}\noutput_per_mtok = ${++i}\n`;
  return `${section('anthropic', 'anthropic', origin, ['anthropic-unpriced', 'anthropic-denied', 'anthropic-fb.np'])}
${section('openai', 'openai', `${origin}/v1`, ['openai-ok.np'])}
${section('gemini', 'gemini', origin)}
[aliases]
"priced-alias" = "openai-ok.np"

[fallbacks]
"anthropic-fb" = ["gemini-ok"]
"anthropic-fb.np" = ["openai-ok.np"]

[routing]
breaker_failures = 1000000

${pricing}`;
}

interface LogEntry {
  request_id: string;
  key: string | null;
  status: number;
  latency_ms: number;
  upstream_ms: number | null;
  overhead_ms: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost_usd: number | null;
  cache_hit: boolean;
}

async function adminGet<T>(gw: TestGateway, path: string): Promise<T> {
  const r = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return (await r.json()) as T;
}

/** Runs `fns` with at most `n` in flight. */
async function pool<T>(fns: Array<() => Promise<T>>, n: number): Promise<T[]> {
  const out: T[] = new Array(fns.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < fns.length) {
        const i = next++;
        out[i] = await fns[i]!();
      }
    }),
  );
  return out;
}

test('the request log, /v1/usage and /v1/budget agree for every way a request ends, on every client format; latency = upstream + overhead', async (t) => {
  const up = await viewsUpstream();
  let gw!: TestGateway;
  const table = cases(() => gw);
  const keys = table.map((c) => `[keys.${c.key}]\nkey = "${c.secret}"\n${c.settings ?? ''}\n`).join('\n');
  gw = await startGateway(`listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"
data_dir = "data"
max_body_bytes = ${MAX_BODY}

${keys}
${providersToml(up.origin)}
[extensions.rate_limit]
requests_per_minute = 1000
[extensions.budget]
default_budget = 100
[extensions.audit]
deny_model = "anthropic-denied"
[extensions.cache]
[extensions.usage]
[extensions.request_log]
`);
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });

  const statuses = await pool(
    table.map((c) => () => c.run(c)),
    PARALLEL,
  );
  const problems: string[] = [];
  table.forEach((c, i) => {
    if (c.statuses && JSON.stringify(statuses[i]) !== JSON.stringify(c.statuses)) problems.push(`${c.name}: HTTP ${statuses[i]}, expected ${c.statuses}`);
  });

  // every request's entry is written after its accounting (onFinish follows onResponse/onError)
  const sent = statuses.reduce((n, s) => n + s.length, 0);
  let log: LogEntry[] = [];
  for (let i = 0; i < 100 && log.length < sent; i++) {
    if (i) await new Promise((r) => setTimeout(r, 50));
    log = (await adminGet<LogEntry[]>(gw, '/v1/requests?limit=1000')).filter((e) => e.request_id.includes(':'));
  }
  const usage = await adminGet<Array<{ key: string; prompt_tokens: number; completion_tokens: number }>>(gw, '/v1/usage');
  const budget = await adminGet<Array<{ key: string; spent_usd: number; reserved_usd: number }>>(gw, '/v1/budget');

  for (const c of table) {
    const ids = c.ids ?? [c.name];
    const own = log.filter((e) => ids.includes(e.request_id));
    if (!own.length) {
      problems.push(`${c.name}: no request log entry`);
      continue;
    }
    const logged = own.reduce(
      (s, e) => ({ prompt: s.prompt + (e.prompt_tokens ?? 0), completion: s.completion + (e.completion_tokens ?? 0), cost: s.cost + (e.cost_usd ?? 0) }),
      { prompt: 0, completion: 0, cost: 0 },
    );
    const u = usage
      .filter((x) => x.key === c.key)
      .reduce((s, x) => ({ prompt: s.prompt + x.prompt_tokens, completion: s.completion + x.completion_tokens }), { prompt: 0, completion: 0 });
    const b = budget.find((x) => x.key === c.key);
    const spent = b?.spent_usd ?? 0;
    const views = `log ${logged.prompt}/${logged.completion} $${logged.cost}, usage ${u.prompt}/${u.completion}, budget $${spent}`;
    if (c.name.endsWith(':nokey')) {
      // no key: nothing is accounted to anyone, and the entry says so
      if (logged.prompt || logged.completion || logged.cost) problems.push(`${c.name}: ${views}`);
    } else {
      if (logged.prompt !== u.prompt || logged.completion !== u.completion || Math.abs(logged.cost - spent) > 2e-9)
        problems.push(`${c.name}: views disagree: ${views}`);
      if (b?.reserved_usd) problems.push(`${c.name}: $${b.reserved_usd} still reserved`);
      const counted = u.prompt + u.completion > 0;
      if (c.counts !== undefined && counted !== c.counts) problems.push(`${c.name}: ${c.counts ? 'counts nothing' : 'counts something'}: ${views}`);
    }
    for (const e of own) {
      const split = (e.upstream_ms ?? 0) + e.overhead_ms;
      if (Math.abs(e.latency_ms - split) > 0.05)
        problems.push(`${e.request_id}: latency ${e.latency_ms} != upstream ${e.upstream_ms} + overhead ${e.overhead_ms}`);
      // the rate case's refusal and the cache hit call no upstream
      const waits = e.status === 429 || e.cache_hit ? undefined : c.waits;
      if (waits !== undefined && (e.upstream_ms === null || e.upstream_ms < waits - 5))
        problems.push(`${e.request_id}: upstream_ms ${e.upstream_ms} (overhead_ms ${e.overhead_ms}) for an upstream that took at least ${waits} ms`);
      if (e.overhead_ms < 0) problems.push(`${e.request_id}: overhead_ms ${e.overhead_ms}`);
      if (waits === undefined && e.upstream_ms !== null) problems.push(`${e.request_id}: upstream_ms ${e.upstream_ms} without an upstream call`);
    }
  }
  t.log(`${table.length} cases, ${log.length} requests`);
  t.deepEqual(problems, []);
});
