/**
 * Property: no request body a client can send costs a 5xx, a hang, a crash or a stack trace
 * (issue 14 "fuzz", item 3a). For every gateway route that takes a body — chat, embeddings,
 * Messages, count_tokens, Responses, the Gemini methods, the admin POST/PATCH routes — fast-check
 * (seeded, a fixed number of runs) sends valid bodies mutated with wrong types, huge and deeply
 * nested values, unknown fields, missing fields; valid bodies with one array grown long or wide
 * (up to 130,000 items, issue 23); and raw bodies that are truncated, not JSON or not UTF-8,
 * under every content type and content encoding. Each answer is below 500, and
 * a 4xx is in the route's own error shape; nothing is logged as an internal error and no log
 * line carries a stack. Models sit on the mock kind, and on anthropic, gemini and
 * common-format kinds in front of a well-behaved mock upstream, so valid bodies go through
 * each translation.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import test from 'ava';
import fc from 'fast-check';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, fixtureJson, replyJson, startUpstream, type MockUpstream } from '../helpers/upstream.ts';

/** Seeded and bounded so `npm test` stays fast; `GW_PROP_RUNS=5000 GW_PROP_SEED=… npx ava test/e2e/prop-bodies.test.ts` explores further. */
const SEED = Number(process.env.GW_PROP_SEED ?? 20_141);
/** Runs per route: mutated JSON bodies, and raw bodies under other content types and encodings. */
const BODY_RUNS = Number(process.env.GW_PROP_RUNS ?? 40);
const RAW_RUNS = Math.ceil(BODY_RUNS / 3);
/** Long and wide bodies are a few MB each: fewer runs. */
const WIDE_RUNS = Math.ceil(BODY_RUNS / 14);

type Shape = 'openai' | 'anthropic' | 'google';

interface Route {
  name: string;
  method: 'POST' | 'PATCH';
  path: string;
  shape: Shape;
  admin?: boolean;
  /** Valid bodies to mutate. */
  bases: Array<Record<string, unknown>>;
  /** Fields never mutated (they would make gw call hosts other than 127.0.0.1). */
  fixed?: string[];
}

const HI = [{ role: 'user', content: 'hi' }];
const CHAT_MODELS = ['mock-1', 'claude-x', 'gem-x', 'local-x'];
const GEMINI_CONTENTS = [{ role: 'user', parts: [{ text: 'hi' }] }];
const TOOL_SCHEMA = { type: 'object', properties: { q: { type: 'string' }, n: { type: 'array', items: { type: 'integer' } } }, required: ['q'] };

function routes(origin: string): Route[] {
  const gemini = (method: string, model: string, bases: Array<Record<string, unknown>>, q = ''): Route => ({
    name: `gemini ${method} (${model})`,
    method: 'POST',
    path: `/v1beta/models/${model}:${method}${q}`,
    shape: 'google',
    bases,
  });
  return [
    {
      name: 'chat',
      method: 'POST',
      path: '/v1/chat/completions',
      shape: 'openai',
      bases: CHAT_MODELS.flatMap((model) => [
        { model, messages: HI, max_tokens: 5 },
        { model, messages: [{ role: 'system', content: 's' }, ...HI], stream: true, stream_options: { include_usage: true } },
        { model, messages: HI, tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: TOOL_SCHEMA } }], tool_choice: 'auto' },
        {
          model,
          messages: [
            ...HI,
            { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"q":"x"}' } }] },
            { role: 'tool', tool_call_id: 'c1', content: 'r' },
          ],
          response_format: { type: 'json_schema', json_schema: { name: 'o', schema: TOOL_SCHEMA } },
        },
      ]),
    },
    {
      name: 'embeddings',
      method: 'POST',
      path: '/v1/embeddings',
      shape: 'openai',
      bases: [
        { model: 'mock-embed', input: 'hi' },
        { model: 'local-embed', input: ['a', 'b'], encoding_format: 'base64' },
        { model: 'gem-embed', input: 'hi', dimensions: 4 },
      ],
    },
    {
      name: 'messages',
      method: 'POST',
      path: '/v1/messages',
      shape: 'anthropic',
      bases: CHAT_MODELS.flatMap((model) => [
        { model, max_tokens: 5, messages: HI },
        { model, max_tokens: 5, system: [{ type: 'text', text: 's' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: true },
        {
          model,
          max_tokens: 5,
          messages: HI,
          tools: [{ name: 'f', description: 'd', input_schema: TOOL_SCHEMA }],
          tool_choice: { type: 'auto' },
          thinking: { type: 'enabled', budget_tokens: 1024 },
        },
        {
          model,
          max_tokens: 5,
          messages: [
            ...HI,
            { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { q: 'x' } }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }] },
          ],
        },
      ]),
    },
    {
      name: 'count_tokens',
      method: 'POST',
      path: '/v1/messages/count_tokens',
      shape: 'anthropic',
      bases: [
        { model: 'claude-x', messages: HI },
        { model: 'local-x', messages: HI, system: 's', tools: [{ name: 'f', input_schema: TOOL_SCHEMA }] },
      ],
    },
    {
      name: 'responses',
      method: 'POST',
      path: '/v1/responses',
      shape: 'openai',
      bases: CHAT_MODELS.flatMap((model) => [
        { model, input: 'hi', max_output_tokens: 16 },
        { model, input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }], instructions: 'be brief', stream: true, store: false },
        {
          model,
          input: 'hi',
          tools: [{ type: 'function', name: 'f', parameters: TOOL_SCHEMA }],
          tool_choice: 'auto',
          text: { format: { type: 'json_schema', name: 'o', schema: TOOL_SCHEMA } },
        },
        {
          model,
          input: [
            { type: 'message', role: 'user', content: 'hi' },
            { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
            { type: 'function_call_output', call_id: 'c1', output: 'r' },
          ],
          reasoning: { effort: 'low' },
        },
      ]),
    },
    ...['gem-x', 'claude-x'].flatMap((model) => [
      gemini('generateContent', model, [
        { contents: GEMINI_CONTENTS, generationConfig: { maxOutputTokens: 5, temperature: 0.5 } },
        {
          contents: GEMINI_CONTENTS,
          systemInstruction: { parts: [{ text: 's' }] },
          tools: [{ functionDeclarations: [{ name: 'f', description: 'd', parameters: TOOL_SCHEMA }] }],
          toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
        },
        {
          contents: [
            ...GEMINI_CONTENTS,
            { role: 'model', parts: [{ functionCall: { name: 'f', args: { q: 'x' } } }] },
            { role: 'user', parts: [{ functionResponse: { name: 'f', response: { r: 1 } } }] },
          ],
          generationConfig: { responseMimeType: 'application/json', responseSchema: TOOL_SCHEMA },
        },
      ]),
      gemini(
        'streamGenerateContent',
        model,
        [{ contents: GEMINI_CONTENTS }, { contents: GEMINI_CONTENTS, generationConfig: { thinkingConfig: { includeThoughts: true } } }],
        '?alt=sse',
      ),
      gemini('countTokens', model, [{ contents: GEMINI_CONTENTS }, { generateContentRequest: { model: `models/${model}`, contents: GEMINI_CONTENTS } }]),
    ]),
    gemini('embedContent', 'gem-embed', [
      { content: { parts: [{ text: 'hi' }] } },
      { content: { parts: [{ text: 'hi' }] }, outputDimensionality: 4, taskType: 'RETRIEVAL_QUERY' },
    ]),
    gemini('batchEmbedContents', 'mock-embed', [
      {
        requests: [
          { model: 'models/mock-embed', content: { parts: [{ text: 'a' }] } },
          { model: 'models/mock-embed', content: { parts: [{ text: 'b' }] } },
        ],
      },
    ]),
    {
      name: 'admin: create provider',
      method: 'POST',
      path: '/v1/admin/providers',
      shape: 'openai',
      admin: true,
      fixed: ['kind', 'base_url', 'models'],
      bases: [{ name: 'rt', kind: 'vllm', api_key: 'sk-rt-0123456789', base_url: `${origin}/v1`, models: ['rt-model'] }],
    },
    {
      name: 'admin: create key',
      method: 'POST',
      path: '/v1/admin/keys',
      shape: 'openai',
      admin: true,
      bases: [
        { name: 'k1' },
        {
          name: 'k2',
          models: ['mock-*'],
          requests_per_minute: 10,
          tokens_per_minute: 1000,
          budget: 1.5,
          budget_period: 'daily',
          expires_at: '2099-01-01T00:00:00Z',
          tags: { team: 'a' },
          max_parallel_requests: 2,
        },
      ],
    },
    {
      name: 'admin: update key',
      method: 'PATCH',
      path: '/v1/admin/keys/runtime',
      shape: 'openai',
      admin: true,
      bases: [
        { models: null, tags: { team: 'b', old: null } },
        { budget: 3, budget_period: 'weekly', expires_at: '2099-01-01' },
      ],
    },
    { name: 'admin: rotate key', method: 'POST', path: '/v1/admin/keys/runtime/rotate', shape: 'openai', admin: true, bases: [{}, { grace_seconds: 60 }] },
  ];
}

/** `{"a":` nested `depth` deep, as a value (MAX_JSON_DEPTH is 128: both sides of it). */
function deep(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** Values no field expects: wrong types, edge numbers, odd strings, huge and deep values. */
const nasty: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    -0,
    1e308,
    -1e308,
    2 ** 53 + 1,
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\u202e',
    'a\nb',
    '{}',
    '[]',
    'null',
    [],
    {},
    [[]],
    [null],
    { '': null },
    { __proto__: null, constructor: 1 },
  ),
  fc.integer(),
  fc.double(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue({ maxDepth: 4 }),
  fc.constant('x'.repeat(300_000)),
  fc.constant(Array.from({ length: 3000 }, (_, i) => i)),
  fc.constant(Array.from({ length: 300 }, () => ({ role: 'user', content: 'hi' }))),
  fc.constant(deep(100)),
  fc.constant(deep(200)),
);

/** Every path inside a JSON value (keys and indexes), the root excluded. */
function paths(v: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (Array.isArray(v))
    v.forEach((x, i) => {
      out.push([...prefix, i]);
      paths(x, [...prefix, i], out);
    });
  else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) {
      out.push([...prefix, k]);
      paths(x, [...prefix, k], out);
    }
  return out;
}

type Mutation = { op: 'set'; at: number; value: unknown } | { op: 'delete'; at: number } | { op: 'add'; at: number; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: nasty }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('add' as const),
      at: fc.nat(),
      key: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'model', 'stream', 'n', 'tools', 'type', 'role')),
      value: nasty,
    }),
  },
);

/** `base` with the mutations applied (a fresh copy); `fixed` top-level fields are left alone. */
function mutate(base: Record<string, unknown>, ms: Mutation[], fixed: string[] = []): unknown {
  let body: unknown = structuredClone(base);
  for (const m of ms) {
    const all = paths(body).filter((p) => !fixed.includes(String(p[0])));
    if (all.length === 0) {
      if (m.op !== 'delete') body = structuredClone(m.value);
      continue;
    }
    const p = all[m.at % all.length]!;
    const parent = p.slice(0, -1).reduce<any>((o, k) => o[k], body);
    const last = p[p.length - 1]!;
    // values are cloned: fast-check shares a constant between runs, and a later mutation may write inside it
    if (m.op === 'set') parent[last] = structuredClone(m.value);
    else if (m.op === 'delete') Array.isArray(parent) ? parent.splice(Number(last), 1) : delete parent[last];
    else {
      const target = parent[last];
      const value = structuredClone(m.value);
      if (typeof target === 'object' && target !== null && !Array.isArray(target))
        Object.defineProperty(target, m.key, { value, enumerable: true, writable: true, configurable: true });
      else parent[last] = Object.defineProperty({}, m.key, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return body;
}

/**
 * Long and wide bodies (issue 23): one array of a valid body (turns, content parts, tool
 * calls, tools, stop sequences…, picked at random) grown to `n` items, copies of its own. 130,000
 * is past the caps on turns and tools (a 400 naming the field) and past what a spread into
 * function arguments takes; 40,000 is under the caps (the converters' work).
 */
const widening = fc.record({ at: fc.nat(), n: fc.constantFrom(2_000, 40_000, 130_000) });

/** `base` with the widening applied (a fresh copy); `fixed` top-level fields are left alone. */
function widen(base: Record<string, unknown>, w: { at: number; n: number }, fixed: string[] = []): unknown {
  const body = structuredClone(base);
  const arrays = paths(body)
    .filter((p) => !fixed.includes(String(p[0])))
    .map((p) => ({ p, v: p.reduce<any>((o, k) => o[k], body) }))
    .filter(({ v }) => Array.isArray(v) && v.length > 0);
  if (arrays.length === 0) return body;
  const { p, v } = arrays[w.at % arrays.length]!;
  const grown = Array.from({ length: w.n }, (_, i) => v[i % v.length]);
  p.slice(0, -1).reduce<any>((o, k) => o[k], body)[p[p.length - 1]!] = grown;
  return body;
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/vnd.api+json',
  'application/problem+json',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  '*/*',
  'json',
  '',
];
const ENCODINGS = ['', 'identity', 'gzip', 'deflate', 'br', 'GZIP', 'x-gzip', 'gzip, gzip', 'bogus', 'compress'];

function encode(body: Buffer, encoding: string): Buffer {
  switch (encoding.toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gzipSync(body);
    case 'deflate':
      return deflateSync(body);
    case 'br':
      return brotliCompressSync(body);
    default:
      return body;
  }
}

/** Raw bodies: valid JSON, truncated, not JSON, not UTF-8 (inside a string, and as the whole body). */
const rawBody = (valid: string) =>
  fc.oneof(
    fc.constant(Buffer.from(valid)),
    fc.nat().map((n) => Buffer.from(valid.slice(0, n % valid.length))),
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
    fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => {
      const at = valid.indexOf('"hi"') >= 0 ? valid.indexOf('"hi"') + 1 : valid.indexOf('"') + 1;
      return Buffer.concat([Buffer.from(valid.slice(0, at)), Buffer.from([0xff, 0xc3, ...b, 0xe2, 0x82]), Buffer.from(valid.slice(at))]);
    }),
    // a value nested 20,000 deep (JSON.stringify of it overflows the stack: built as text)
    fc.constant(Buffer.from(valid.replace(/"hi"|\{\}/, `${'['.repeat(20_000)}${']'.repeat(20_000)}`))),
    fc.constantFrom(
      Buffer.from(''),
      Buffer.from('null'),
      Buffer.from('[]'),
      Buffer.from('"x"'),
      Buffer.from('{'),
      Buffer.from('{"a":1}{"b":2}'),
      Buffer.from('\ufeff{}'),
      Buffer.from('{"model":"mock-1","messages":[{"role":"user","content":"hi"}],"model":"other"}'),
    ),
  );

/** True when `text` is the route's error body. */
function hasShape(shape: Shape, text: string): boolean {
  let b: any;
  try {
    b = JSON.parse(text);
  } catch {
    return false;
  }
  if (shape === 'anthropic') return b?.type === 'error' && typeof b.error?.type === 'string' && typeof b.error?.message === 'string';
  if (shape === 'google') return typeof b?.error?.code === 'number' && typeof b.error.message === 'string' && typeof b.error.status === 'string';
  return typeof b?.error?.message === 'string' && typeof b.error.type === 'string' && 'code' in b.error && 'param' in b.error;
}

/** A well-behaved upstream for every kind the gateway has: answers every valid call with a recorded answer. */
async function upstream(): Promise<MockUpstream> {
  const chat = fixtureJson('openai/spec-examples/chat.default.response.json');
  const chatSse = fixture('openai/openai-node/chat.stream.include-usage.sse');
  const messages = fixtureJson('anthropic/vercel-ai/anthropic-text.json');
  const messagesSse = fixture('anthropic/anthropic-sdk-typescript/basic.sse');
  const gemini = fixtureJson('gemini/vercel-ai/google-text.json');
  const geminiSse = fixture('gemini/vercel-ai/google-text.sse');
  const sse = (res: import('node:http').ServerResponse, text: string) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(text);
  };
  return startUpstream((req, res) => {
    const url = req.url;
    const body = req.json ?? {};
    if (url.endsWith('/models')) return replyJson(res, 200, { object: 'list', data: [{ id: 'rt-model', object: 'model' }] });
    if (url.endsWith('/chat/completions')) return body.stream ? sse(res, chatSse) : replyJson(res, 200, chat);
    if (url.endsWith('/embeddings')) {
      const n = Array.isArray(body.input) ? body.input.length : 1;
      return replyJson(res, 200, {
        object: 'list',
        model: 'local-embed',
        data: Array.from({ length: n }, (_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3, 0.4] })),
        usage: { prompt_tokens: n, total_tokens: n },
      });
    }
    if (url.startsWith('/v1/messages/count_tokens')) return replyJson(res, 200, { input_tokens: 7 });
    if (url.startsWith('/v1/messages')) return body.stream ? sse(res, messagesSse) : replyJson(res, 200, messages);
    if (url.includes(':streamGenerateContent')) return sse(res, geminiSse);
    if (url.includes(':generateContent')) return replyJson(res, 200, gemini);
    if (url.includes(':countTokens')) return replyJson(res, 200, { totalTokens: 3 });
    if (url.includes(':embedContent')) return replyJson(res, 200, { embedding: { values: [0.1, 0.2, 0.3, 0.4] } });
    if (url.includes(':batchEmbedContents'))
      return replyJson(res, 200, { embeddings: (Array.isArray(body.requests) ? body.requests : []).map(() => ({ values: [0.1, 0.2, 0.3, 0.4] })) });
    replyJson(res, 404, { error: { message: `mock upstream: no ${url}` } });
  });
}

let gw: TestGateway;
let up: MockUpstream;

test.before(async () => {
  up = await upstream();
  gw = await startGateway(
    baseConfig(`[providers.mock]\nmodels = ["mock-1", "mock-embed"]\ndelay_ms = 0\n
[providers.claude]\nkind = "anthropic"\napi_key = "sk-a-0123456789"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["claude-x"]\n
[providers.gem]\nkind = "gemini"\napi_key = "gk-0123456789"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["gem-x", "gem-embed"]\n
[providers.local]\nkind = "vllm"\napi_key = "sk-l-0123456789"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ["local-x", "local-embed"]\n
[extensions.usage]\n`),
  );
  const k = await fetch(`${gw.url}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{"name":"runtime"}',
  });
  if (k.status !== 201) throw new Error(`could not create the runtime key: ${k.status}`);
});

test.after.always(async () => {
  await gw?.stop();
  await up?.close();
});

/** Sends one request; the answer must come (10 s), be below 500, and a 4xx must have the route's shape. Returns a failure description or undefined. */
async function check(r: Route, body: Buffer, contentType: string, encoding: string): Promise<string | undefined> {
  const headers: Record<string, string> = { authorization: `Bearer ${r.admin ? ADMIN_TOKEN : KEY}` };
  if (!r.admin) {
    headers['x-api-key'] = KEY;
    headers['x-goog-api-key'] = KEY;
  }
  if (contentType) headers['content-type'] = contentType;
  if (encoding) headers['content-encoding'] = encoding;
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${gw.url}${r.path}`, { method: r.method, headers, body, signal: AbortSignal.timeout(10_000) });
    text = await res.text();
  } catch (err) {
    return `no answer: ${(err as Error).message}`;
  }
  if (res.status >= 500) return `${res.status}: ${text.slice(0, 300)}`;
  if (res.status >= 400 && !hasShape(r.shape, text)) return `${res.status} not in the ${r.shape} error shape: ${text.slice(0, 300)}`;
  return undefined;
}

const describeBody = (b: Buffer) => (b.length > 300 ? `${b.subarray(0, 300).toString('utf8')}… (${b.length} bytes)` : b.toString('utf8'));

for (const r of routes('http://127.0.0.1:9')) {
  test.serial(`${r.name}: mutated JSON bodies get an answer below 500, a 4xx in the route's error shape`, async (t) => {
    const route = routes(up.origin).find((x) => x.name === r.name)!;
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 }), async (which, ms) => {
        const body = Buffer.from(JSON.stringify(mutate(route.bases[which % route.bases.length]!, ms, route.fixed)) ?? 'null');
        const failure = await check(route, body, 'application/json', '');
        if (failure) throw new Error(`${failure}\nbody: ${describeBody(body)}`);
      }),
      { seed: SEED, numRuns: BODY_RUNS },
    );
    t.pass();
  });

  test.serial(
    `${r.name}: long and wide bodies (an array grown to up to 130,000 items) get an answer below 500, a 4xx in the route's error shape`,
    async (t) => {
      const route = routes(up.origin).find((x) => x.name === r.name)!;
      await fc.assert(
        fc.asyncProperty(fc.nat(), widening, async (which, w) => {
          const body = Buffer.from(JSON.stringify(widen(route.bases[which % route.bases.length]!, w, route.fixed)));
          const failure = await check(route, body, 'application/json', '');
          if (failure) throw new Error(`${failure}\nbody: ${describeBody(body)}`);
        }),
        { seed: SEED, numRuns: WIDE_RUNS },
      );
      t.pass();
    },
  );

  test.serial(
    `${r.name}: raw bodies (truncated, not JSON, not UTF-8) under every content type and encoding get an answer below 500 in the route's shape`,
    async (t) => {
      const route = routes(up.origin).find((x) => x.name === r.name)!;
      const valid = JSON.stringify(route.bases[0]);
      await fc.assert(
        fc.asyncProperty(
          rawBody(valid),
          fc.constantFrom(...CONTENT_TYPES),
          fc.constantFrom(...ENCODINGS),
          fc.boolean(),
          async (raw, contentType, encoding, encoded) => {
            const body = encoded ? encode(raw, encoding) : raw;
            const failure = await check(route, body, contentType, encoding);
            if (failure)
              throw new Error(
                `${failure}\ncontent-type: ${contentType}, content-encoding: ${encoding} (${encoded ? 'encoded' : 'not encoded'})\nbody: ${describeBody(raw)}`,
              );
          },
        ),
        { seed: SEED, numRuns: RAW_RUNS },
      );
      t.pass();
    },
  );
}

// found by the suite (seed 99): a dropped built-in tool's type with a control character went
// into x-gw-dropped-tools as it was, and node refused the header (a 500 with a stack)
test.serial('responses: dropped tools whose type or name holds control or non-ASCII characters are named percent-encoded in x-gw-dropped-tools', async (t) => {
  const r = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'local-x',
      input: 'hi',
      tools: [
        { type: '\u0000' },
        { type: 'web_search\r\nx-evil: 1' },
        { type: 'mcp', server_label: '世界\ud800' },
        ...Array.from({ length: 200 }, () => ({ type: 'web_search' })),
      ],
    }),
  });
  t.is(r.status, 200);
  const header = r.headers.get('x-gw-dropped-tools')!;
  t.true(header.startsWith('%00, web_search%0D%0Ax-evil: 1, mcp:%E4%B8%96%E7%95%8C%EF%BF%BD, web_search'), header.slice(0, 120));
  t.true(header.length <= 1027, 'bounded');
  t.is(r.headers.get('x-evil'), null);
});

test.serial('nothing was logged as an internal error, and no log line carries a stack', (t) => {
  const bad = gw.logs.filter((l) => l.includes('"level":50') || l.includes('"level":60') || l.includes('"stack"'));
  t.deepEqual(
    bad.map((l) => l.slice(0, 400)),
    [],
  );
});
