/**
 * The bench scenarios, as data. A scenario names a gw setup (one gw process per setup),
 * the request sent through gw, optionally the same work sent straight to the upstream, and
 * optionally another scenario to compare against. Adding one is a few lines here.
 */

/** A gw configuration; scenarios naming the same `id` share one gw process. */
export interface GwSetup {
  id: string;
  /** Config sections after the bench's head (listen, data_dir, one key); `up` = `http://127.0.0.1:<port>`. */
  toml: (up: string) => string;
  /** Plugin folders (relative to the repo) the setup needs; the scenario is pending while one is missing. */
  needs?: string[];
  /** `redis`: the bench starts a redis-server and gives this setup `[store] url` (its own database). */
  store?: 'redis';
  /** `gw serve --workers N` (N > 1 needs `store: 'redis'`); CPU and RSS then count every worker. */
  workers?: number;
  /** Virtual key settings of the bench key (TOML lines under `[keys.bench]`). */
  keySettings?: string;
}

/** One request shape, sent over and over. */
export interface BenchRequest {
  path: string;
  body: Record<string, unknown>;
  /** Make every body unique (autocannon's `[<id>]` replacement) so no cache can answer. */
  unique?: boolean;
}

export interface Scenario {
  name: string;
  /** One line for the report. */
  what: string;
  gw: GwSetup;
  /** Sent to gw with the bench's gateway key. */
  request: BenchRequest;
  /** The same work sent straight to the upstream (omit for none); identical direct runs are measured once. */
  direct?: BenchRequest;
  connections: number;
  /** SSE response: also time first byte and end of stream, at `ttfbConcurrency` (default: `connections`). */
  stream?: boolean;
  ttfbConcurrency?: number;
  /** A scenario whose gw run is this one's baseline (e.g. extensions on vs off). */
  compare?: string;
}

const MODEL = 'bench-model';
const messages = [{ role: 'user', content: 'Say hello in twenty words.' }];
/** The bench's non-streaming chat body, and the same streamed. */
export const chat = { model: MODEL, messages, max_tokens: 64 };
export const chatStream = { ...chat, stream: true };
export const chatPath = '/v1/chat/completions';
/** The same prompt as a Gemini request (the model is in the URL). */
const geminiBody = { contents: [{ role: 'user', parts: [{ text: messages[0]!.content }] }], generationConfig: { maxOutputTokens: 64 } };
const upstreamProvider = (name: string, up: string) => `[providers.${name}]
api_key = "sk-bench-upstream"
base_url = "${up}/v1"
models = ["${MODEL}"]
`;

/** One provider, no extensions. */
export const plain: GwSetup = { id: 'plain', toml: (up) => upstreamProvider('upstream', up) };

/**
 * The config of one provider and the otel extension at `sampling`, exporting spans and
 * metrics to the bench upstream (it accepts OTLP); `extra`: lines added to the section.
 */
export function otelToml(up: string, sampling: string, extra = ''): string {
  return `${upstreamProvider('upstream', up)}
[extensions.otel]
endpoint = "${up}"
sampling_ratio = ${sampling}
metrics_interval_ms = 5000
${extra}
`;
}

/** otelToml at sampling 1.0, or BENCH_OTEL_SAMPLING, with BENCH_OTEL_TOML's lines. */
export const otelOn: GwSetup = {
  id: 'otel',
  needs: ['plugins/extensions/otel'],
  toml: (up) => otelToml(up, process.env.BENCH_OTEL_SAMPLING ?? '1.0', process.env.BENCH_OTEL_TOML ?? ''),
};

/** One provider and the usage extension, with (`on`) or without its latency sketches (bench/latency.ts). */
export const usageLatency = (on: boolean): GwSetup => ({
  id: on ? 'usage-latency' : 'usage-no-latency',
  needs: ['plugins/extensions/usage'],
  toml: (up) => `${upstreamProvider('upstream', up)}
[extensions.usage]
latency = ${on}
`,
});

/** Two providers serving the bench model, with prompt-cache affinity on (the default) or off. */
export const group2 = (affinity: boolean): GwSetup => ({
  id: affinity ? 'group2-affinity' : 'group2',
  toml: (up) => `${['one', 'two'].map((n) => upstreamProvider(`up_${n}`, up)).join('\n')}\n[routing]\naffinity = ${affinity}\n`,
});

const group3: GwSetup = {
  id: 'group3',
  toml: (up) => ['one', 'two', 'three'].map((n) => upstreamProvider(`up_${n}`, up)).join('\n'),
};

const EXTENSIONS = ['cache', 'rate_limit', 'usage', 'budget', 'logging'];
/**
 * All five extensions with limits no bench run reaches; the cache keeps entries
 * `cacheTtlSeconds` (its default, 300, unless given).
 */
export const ext5With = (id: string, cacheTtlSeconds = 300): GwSetup => ({
  id,
  needs: EXTENSIONS.map((e) => `plugins/extensions/${e}`),
  toml: (up) => `${upstreamProvider('upstream', up)}
[pricing."${MODEL}"]
input_per_mtok = 2.5
output_per_mtok = 10.0

[extensions.cache]
ttl_seconds = ${cacheTtlSeconds}
[extensions.rate_limit]
requests_per_minute = 1000000000
tokens_per_minute = 1000000000000
[extensions.usage]
[extensions.budget]
default_budget = 1000000000.0
[extensions.logging]
level = "info"
`,
});
/** All five extensions, the cache at its default TTL (300 s). */
export const ext5 = ext5With('ext5');

/** The extensions that read key settings, with limits no run reaches; the bench key plain. */
const limits: GwSetup = {
  id: 'limits',
  needs: ['plugins/extensions/rate_limit', 'plugins/extensions/budget'],
  toml: (up) => `${upstreamProvider('upstream', up)}
[pricing."${MODEL}"]
input_per_mtok = 2.5
output_per_mtok = 10.0

[extensions.rate_limit]
requests_per_minute = 1000000000
tokens_per_minute = 1000000000000
[extensions.budget]
default_budget = 1000000000.0
`,
};

/** The same, the bench key with every virtual key setting (issue 13): what its admission adds. */
const vkey: GwSetup = {
  ...limits,
  id: 'vkey',
  keySettings: `models = ["bench-*", "gpt-4o*", "claude-*"]
requests_per_minute = 1000000000
tokens_per_minute = 1000000000000
budget = 1000000000.0
budget_period = "monthly"
expires_at = 2099-01-01
tags = { team = "bench", env = "perf" }
max_parallel_requests = 100000`,
};

/** ext5 on the Redis store instead of LevelDB. */
const ext5Redis: GwSetup = { ...ext5, id: 'ext5-redis', store: 'redis' };

/** No extensions on the Redis store: one process, and two workers on the same socket. */
const redisW1: GwSetup = { id: 'redis-w1', store: 'redis', toml: plain.toml };
const redisW2: GwSetup = { id: 'redis-w2', store: 'redis', workers: 2, toml: plain.toml };

/** The usage extension with lifetime totals only (retention_days = 0): the console's baseline. */
const usageLifetime: GwSetup = {
  id: 'usage-lifetime',
  needs: ['plugins/extensions/usage'],
  toml: (up) => `${upstreamProvider('upstream', up)}
[extensions.usage]
retention_days = 0
`,
};

/** The same plus what the console reads: hourly usage buckets (default retention) and the request log. */
const usageConsole: GwSetup = {
  id: 'usage-console',
  needs: ['plugins/extensions/usage', 'plugins/extensions/request_log'],
  toml: (up) => `${upstreamProvider('upstream', up)}
[extensions.usage]
[extensions.request_log]
`,
};

const cacheOnly: GwSetup = {
  id: 'cache',
  needs: ['plugins/extensions/cache'],
  toml: (up) => `${upstreamProvider('upstream', up)}
[extensions.cache]
ttl_seconds = 300
`,
};

const anthropic: GwSetup = {
  id: 'anthropic',
  needs: ['plugins/providers/anthropic/index.ts'],
  toml: (up) => `[providers.anthropic]
api_key = "sk-bench-upstream"
base_url = "${up}"
models = ["claude-bench"]
`,
};

const gemini: GwSetup = {
  id: 'gemini',
  needs: ['plugins/providers/gemini/index.ts'],
  toml: (up) => `[providers.gemini]
api_key = "bench-upstream"
base_url = "${up}"
models = ["gemini-bench"]
`,
};

/** The `openai` kind: POST /v1/responses passes through natively (the plain setup's self-defined kind translates it). */
const openaiKind: GwSetup = {
  id: 'openai-kind',
  needs: ['plugins/formats/openai-responses/index.ts'],
  toml: (up) => `[providers.openai]
api_key = "sk-bench-upstream"
base_url = "${up}/v1"
models = ["${MODEL}"]
`,
};
const responsesPath = '/v1/responses';
const responsesStream = { model: MODEL, input: messages[0]!.content, max_output_tokens: 64, stream: true };

export const scenarios: Scenario[] = [
  {
    name: 'json-c1',
    what: 'non-streaming chat, small body, 1 connection',
    gw: plain,
    request: { path: chatPath, body: chat },
    direct: { path: chatPath, body: chat },
    connections: 1,
  },
  {
    name: 'json-c50',
    what: 'non-streaming chat, small body, 50 connections',
    gw: plain,
    request: { path: chatPath, body: chat },
    direct: { path: chatPath, body: chat },
    connections: 50,
  },
  {
    name: 'stream-c1',
    what: '20-chunk SSE stream (openai passthrough), 1 connection',
    gw: plain,
    request: { path: chatPath, body: chatStream },
    direct: { path: chatPath, body: chatStream },
    connections: 1,
    stream: true,
  },
  {
    name: 'stream-c50',
    what: '20-chunk SSE stream (openai passthrough), 50 connections',
    gw: plain,
    request: { path: chatPath, body: chatStream },
    direct: { path: chatPath, body: chatStream },
    connections: 50,
    stream: true,
  },
  {
    name: 'otel-json-c50',
    what: 'the otel extension (sampling 1.0, OTLP to a local receiver) vs none; `--only otel` measures it ABBA',
    gw: otelOn,
    request: { path: chatPath, body: chat },
    direct: { path: chatPath, body: chat },
    connections: 50,
    compare: 'json-c50',
  },
  {
    name: 'group3-json-c50',
    what: 'a group of three providers (round robin, same upstream) vs one',
    gw: group3,
    request: { path: chatPath, body: chat },
    direct: { path: chatPath, body: chat },
    connections: 50,
    compare: 'json-c50',
  },
  {
    name: 'ext5-json-c1',
    what: 'all five extensions on vs none, 1 connection (the added p50 the issue aims at)',
    gw: ext5,
    request: { path: chatPath, body: chat, unique: true },
    direct: { path: chatPath, body: chat },
    connections: 1,
    compare: 'json-c1',
  },
  {
    name: 'cache-hit-c1',
    what: 'cache hit vs an upstream round trip through gw, 1 connection',
    gw: cacheOnly,
    request: { path: chatPath, body: chat },
    direct: { path: chatPath, body: chat },
    connections: 1,
    compare: 'json-c1',
  },
  {
    name: 'ext5-json-c50',
    what: 'all five extensions on vs none (unique bodies: cache misses)',
    gw: ext5,
    request: { path: chatPath, body: chat, unique: true },
    direct: { path: chatPath, body: chat },
    connections: 50,
    compare: 'json-c50',
  },
  {
    name: 'ext5-stream-c50',
    what: 'all five extensions on vs none, 20-chunk streams',
    gw: ext5,
    request: { path: chatPath, body: chatStream },
    direct: { path: chatPath, body: chatStream },
    connections: 50,
    stream: true,
    compare: 'stream-c50',
  },
  {
    name: 'ext5-redis-json-c50',
    what: 'all five extensions on the Redis store vs LevelDB (unique bodies: cache misses)',
    gw: ext5Redis,
    request: { path: chatPath, body: chat, unique: true },
    direct: { path: chatPath, body: chat },
    connections: 50,
    compare: 'ext5-json-c50',
  },
  {
    name: 'ext5-redis-stream-c50',
    what: 'all five extensions on the Redis store vs LevelDB, 20-chunk streams',
    gw: ext5Redis,
    request: { path: chatPath, body: chatStream },
    direct: { path: chatPath, body: chatStream },
    connections: 50,
    stream: true,
    compare: 'ext5-stream-c50',
  },
  {
    name: 'w1-json-c50',
    what: 'one process on the Redis store, no extensions (baseline of --workers 2)',
    gw: redisW1,
    request: { path: chatPath, body: chat },
    direct: { path: chatPath, body: chat },
    connections: 50,
    compare: 'json-c50',
  },
  {
    name: 'w2-json-c50',
    what: '--workers 2 vs 1 on one socket, non-streaming chat, 50 connections',
    gw: redisW2,
    request: { path: chatPath, body: chat },
    direct: { path: chatPath, body: chat },
    connections: 50,
    compare: 'w1-json-c50',
  },
  {
    name: 'usage-json-c50',
    what: 'usage extension, lifetime totals only (retention_days = 0), 50 connections',
    gw: usageLifetime,
    request: { path: chatPath, body: chat },
    direct: { path: chatPath, body: chat },
    connections: 50,
  },
  {
    name: 'console-json-c50',
    what: "usage with hour buckets + request_log vs usage alone (the console's cost per request)",
    gw: usageConsole,
    request: { path: chatPath, body: chat },
    direct: { path: chatPath, body: chat },
    connections: 50,
    compare: 'usage-json-c50',
  },
  {
    name: 'usage-stream-c50',
    what: 'usage extension, lifetime totals only, 20-chunk streams, 50 connections',
    gw: usageLifetime,
    request: { path: chatPath, body: chatStream },
    direct: { path: chatPath, body: chatStream },
    connections: 50,
    stream: true,
  },
  {
    name: 'console-stream-c50',
    what: 'usage with hour buckets + request_log vs usage alone, 20-chunk streams',
    gw: usageConsole,
    request: { path: chatPath, body: chatStream },
    direct: { path: chatPath, body: chatStream },
    connections: 50,
    stream: true,
    compare: 'usage-stream-c50',
  },
  {
    name: 'limits-json-c1',
    what: 'rate_limit + budget, a plain key, 1 connection (baseline of vkey-json-c1)',
    gw: limits,
    request: { path: chatPath, body: chat },
    connections: 1,
    compare: 'json-c1',
  },
  {
    name: 'vkey-json-c1',
    what: 'the same with a key carrying every virtual key setting, 1 connection',
    gw: vkey,
    request: { path: chatPath, body: chat },
    connections: 1,
    compare: 'limits-json-c1',
  },
  {
    name: 'limits-json-c50',
    what: 'rate_limit + budget, a plain key, 50 connections (baseline of vkey-json-c50)',
    gw: limits,
    request: { path: chatPath, body: chat },
    connections: 50,
    compare: 'json-c50',
  },
  {
    name: 'vkey-json-c50',
    what: 'the same with a key carrying every virtual key setting, 50 connections',
    gw: vkey,
    request: { path: chatPath, body: chat },
    connections: 50,
    compare: 'limits-json-c50',
  },
  {
    name: 'cache-hit-c50',
    what: 'cache hit vs an upstream round trip',
    gw: cacheOnly,
    request: { path: chatPath, body: chat },
    direct: { path: chatPath, body: chat },
    connections: 50,
    compare: 'json-c50',
  },
  {
    name: 'anthropic-stream-c50',
    what: 'anthropic stream translated vs openai passthrough',
    gw: anthropic,
    request: { path: chatPath, body: { ...chatStream, model: 'claude-bench' } },
    direct: { path: '/v1/messages', body: { model: 'claude-bench', max_tokens: 64, messages, stream: true } },
    connections: 50,
    stream: true,
    compare: 'stream-c50',
  },
  {
    name: 'gemini-stream-c50',
    what: 'gemini stream translated vs openai passthrough',
    gw: gemini,
    request: { path: chatPath, body: { ...chatStream, model: 'gemini-bench' } },
    direct: { path: '/v1beta/models/gemini-bench:streamGenerateContent?alt=sse', body: geminiBody },
    connections: 50,
    stream: true,
    compare: 'stream-c50',
  },
  {
    name: 'gemini-in-stream-c50',
    what: 'Gemini API in (?alt=sse), translated to the openai upstream, vs the chat passthrough',
    gw: plain,
    request: { path: `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, body: geminiBody },
    direct: { path: chatPath, body: chatStream },
    connections: 50,
    stream: true,
    compare: 'stream-c50',
  },
  {
    name: 'responses-native-stream-c50',
    what: 'Responses stream, openai kind: native passthrough (26 events), vs chat passthrough',
    gw: openaiKind,
    request: { path: responsesPath, body: responsesStream },
    direct: { path: responsesPath, body: responsesStream },
    connections: 50,
    stream: true,
    compare: 'stream-c50',
  },
  {
    name: 'responses-translated-stream-c50',
    what: 'Responses stream translated from a 20-chunk chat stream (26 events) vs the native passthrough',
    gw: { ...plain, needs: openaiKind.needs },
    request: { path: responsesPath, body: responsesStream },
    direct: { path: chatPath, body: chatStream },
    connections: 50,
    stream: true,
    compare: 'responses-native-stream-c50',
  },
];
