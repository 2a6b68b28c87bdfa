/**
 * One rule for malformed upstream SSE on every stream path (issue 14 item 11; docs/formats-and-agents.md
 * "Streams", lib/common/sse-data.ts): event data that is not a JSON object (`{not json`,
 * `[1,2,3]`, `null`) as a stream's first event is a failure before the stream, retried like
 * any other (the retry here gets a good stream: 200); after the first byte it is the route's
 * one error event, then the end, counted as an upstream error of the provider. A line that
 * is not an SSE field (no colon) is ignored by the SSE rules: the stream completes as if it
 * were not there. Each provider's stream reading (common format, zhipu's mapped chunks,
 * anthropic, gemini) and each format's passthrough (Messages, Responses, Gemini), and the
 * translated formats, with recorded streams and real sockets.
 */
import test, { type ExecutionContext } from 'ava';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { fixture, startUpstream, type MockUpstream } from '../helpers/upstream.ts';
import { scrape, value } from './metrics-helpers.ts';
import { chunksToSse } from './responses-helpers.ts';

/** SSE frames of a recorded stream, framing kept. */
function frames(sse: string): string[] {
  const sep = sse.includes('\r\n\r\n') ? '\r\n\r\n' : '\n\n';
  return sse
    .split(sep)
    .filter((e) => e.trim() !== '')
    .map((e) => e + sep);
}

// its first chunks and its end (finish, usage, [DONE]): the whole recording is 150 events
const OPENAI_ALL = frames(fixture('openai/vercel-ai/openai-text.sse'));
const OPENAI = [...OPENAI_ALL.slice(0, 6), ...OPENAI_ALL.slice(-3)];
// its first chunks and its end (finish with usage, [DONE]): the whole recording is 734 events
const ZHIPU_ALL = frames(fixture('zhipu/fantasy-cassettes/glm-4.7-flash.simple_streaming.0.response.sse'));
const ZHIPU = [...ZHIPU_ALL.slice(0, 8), ...ZHIPU_ALL.slice(-2)];
const ANTHROPIC = frames(fixture('anthropic/anthropic-sdk-typescript/basic.sse'));
const GEMINI = frames(fixture('gemini/vercel-ai/google-text.sse'));
// the first response of the recording (it holds four turns)
const RESPONSES_ALL = frames(chunksToSse(fixture('responses/vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt').split('\n')));
const RESPONSES = RESPONSES_ALL.slice(0, RESPONSES_ALL.findIndex((f) => f.startsWith('event: response.completed')) + 1);

/** Event data no stream carries, each as its own event. */
const BAD = ['{not json', '[1,2,3]', 'null'];

interface StreamPath {
  name: string;
  /** Provider section (without its name line) and the model it serves. */
  provider: string;
  model: string;
  path: string;
  body: Record<string, unknown>;
  /** The recorded upstream stream, and how many of its events go out before the bad one. */
  upstream: string[];
  before: number;
  /** What ends a complete answer for the client. */
  terminator: RegExp;
  /** Extra bad events for this path (an event type the path parses, a mapped chunk…). */
  bad?: string[];
}

const HI = [{ role: 'user', content: 'hi' }];
const GEMINI_BODY = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
const common = (origin: string) => `kind = "vllm"\nbase_url = "${origin}/v1"`;

const PATHS: Array<(origin: string) => StreamPath> = [
  (o) => ({
    name: 'chat on a common-format kind',
    provider: common(o),
    model: 'local-x',
    path: '/v1/chat/completions',
    body: { model: 'local-x', messages: HI, stream: true },
    upstream: OPENAI,
    before: 3,
    terminator: /data: \[DONE\]/,
  }),
  (o) => ({
    name: 'chat on zhipu (mapped chunks)',
    provider: `kind = "zhipu"\nbase_url = "${o}/api/paas/v4"`,
    model: 'glm-4.7-flash',
    path: '/v1/chat/completions',
    body: { model: 'glm-4.7-flash', messages: HI, stream: true },
    upstream: ZHIPU,
    before: 3,
    terminator: /data: \[DONE\]/,
    bad: ['{"choices":[{"finish_reason":"sensitive",}]}', '[{"finish_reason":"sensitive"}]'],
  }),
  (o) => ({
    name: 'chat on anthropic (stream mapper)',
    provider: `kind = "anthropic"\nbase_url = "${o}"`,
    model: 'claude-x',
    path: '/v1/chat/completions',
    body: { model: 'claude-x', messages: HI, stream: true },
    upstream: ANTHROPIC,
    before: 4,
    terminator: /data: \[DONE\]/,
    bad: ['event: content_block_delta\ndata: [1]'],
  }),
  (o) => ({
    name: 'chat on gemini (stream mapper)',
    provider: `kind = "gemini"\nbase_url = "${o}"`,
    model: 'gemini-x',
    path: '/v1/chat/completions',
    body: { model: 'gemini-x', messages: HI, stream: true },
    upstream: GEMINI,
    before: 1,
    terminator: /data: \[DONE\]/,
  }),
  (o) => ({
    name: 'Messages passthrough',
    provider: `kind = "anthropic"\nbase_url = "${o}"`,
    model: 'claude-x',
    path: '/v1/messages',
    body: { model: 'claude-x', max_tokens: 50, messages: HI, stream: true },
    upstream: ANTHROPIC,
    before: 4,
    terminator: /event: message_stop/,
    bad: ['event: message_delta\ndata: null', 'event: content_block_delta\ndata: {"type":"content_block_delta"'],
  }),
  (o) => ({
    name: 'Messages translated',
    provider: common(o),
    model: 'local-x',
    path: '/v1/messages',
    body: { model: 'local-x', max_tokens: 50, messages: HI, stream: true },
    upstream: OPENAI,
    before: 3,
    terminator: /event: message_stop/,
  }),
  (o) => ({
    name: 'Responses passthrough',
    provider: `kind = "openai"\nbase_url = "${o}/v1"`,
    model: 'gpt-x',
    path: '/v1/responses',
    body: { model: 'gpt-x', input: 'hi', stream: true },
    upstream: RESPONSES,
    before: 5,
    terminator: /event: response\.completed/,
    bad: ['event: response.completed\ndata: [1]'],
  }),
  (o) => ({
    name: 'Responses translated',
    provider: common(o),
    model: 'local-x',
    path: '/v1/responses',
    body: { model: 'local-x', input: 'hi', stream: true },
    upstream: OPENAI,
    before: 3,
    terminator: /response\.completed/,
  }),
  (o) => ({
    name: 'Gemini passthrough',
    provider: `kind = "gemini"\nbase_url = "${o}"`,
    model: 'gemini-x',
    path: '/v1beta/models/gemini-x:streamGenerateContent?alt=sse',
    body: GEMINI_BODY,
    upstream: GEMINI,
    before: 1,
    terminator: /"finishReason"/,
  }),
  (o) => ({
    name: 'Gemini translated',
    provider: common(o),
    model: 'local-x',
    path: '/v1beta/models/local-x:streamGenerateContent?alt=sse',
    body: GEMINI_BODY,
    upstream: OPENAI,
    before: 3,
    terminator: /"finishReason"/,
  }),
];

/** The event separator of a recorded stream (Google's is CRLF). */
const sepOf = (frames: string[]) => (frames[0]!.endsWith('\r\n\r\n') ? '\r\n\r\n' : '\n\n');

/** A bad payload as one event in the stream's framing (a bare `data:` line unless it names its event). */
function badFrame(bad: string, sep: string): string {
  return (bad.startsWith('event: ') ? bad : `data: ${bad}`) + sep;
}

async function rig(t: ExecutionContext, origin: (o: string) => StreamPath): Promise<{ gw: TestGateway; up: MockUpstream; script: { next: string[][] } }> {
  // each upstream request takes the next scripted stream (the last one repeats)
  const script = { next: [] as string[][] };
  const up = await startUpstream((_req, res) => {
    const events = script.next.length > 1 ? script.next.shift()! : script.next[0]!;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(events.join(''));
  });
  const path = origin(up.origin);
  const gw = await startGateway(
    baseConfig(`[providers.up]\napi_key = "sk-upstream-0123456789"\n${path.provider}\nmax_retries = 1\nmodels = ["${path.model}"]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { gw, up, script };
}

const post = (gw: TestGateway, p: StreamPath) =>
  fetch(`${gw.url}${p.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(p.body),
  });

for (const make of PATHS) {
  const name = make('http://x').name;

  test(`${name}: a malformed first event is retried like any pre-stream failure (the retry's good stream answers 200)`, async (t) => {
    const p = make('http://x');
    const { gw, up, script } = await rig(t, make);
    const sep = sepOf(p.upstream);
    for (const bad of [...BAD, ...(p.bad ?? [])]) {
      script.next = [[badFrame(bad, sep), ...p.upstream], p.upstream];
      const before = up.received.length;
      const r = await post(gw, p);
      t.is(r.status, 200, bad);
      const text = await r.text();
      t.regex(text, p.terminator, bad);
      t.false(text.includes('not a JSON object'), bad);
      t.is(up.received.length - before, 2, `${bad}: retried once`);
    }
    t.false(
      gw.logs.some((l) => l.includes('"level":50')),
      'nothing logged as an internal error',
    );
  });

  test(`${name}: a malformed event after the first byte is one error event in the route's shape, then the end; an upstream error of the provider`, async (t) => {
    const p = make('http://x');
    const { gw, up, script } = await rig(t, make);
    const sep = sepOf(p.upstream);
    const bads = [...BAD, ...(p.bad ?? [])];
    for (const bad of bads) {
      script.next = [[...p.upstream.slice(0, p.before), badFrame(bad, sep), ...p.upstream.slice(p.before)]];
      const before = up.received.length;
      const r = await post(gw, p);
      t.is(r.status, 200, bad);
      const text = await r.text();
      t.false(p.terminator.test(text), `${bad}: no normal end`);
      const events = text.split(/\r?\n\r?\n/).filter((e) => e.trim() !== '' && !e.startsWith(':'));
      const errors = events.filter((e) => e.includes('not a JSON object'));
      // one error event (Responses: `error`, then `response.failed` carrying the same message)
      t.true(errors.length === 1 || (errors.length === 2 && errors[1]!.includes('response.failed')), `${bad}: one error: ${text.slice(-400)}`);
      t.is(events.at(-1), errors.at(-1), `${bad}: the error is the last event`);
      t.false(events.includes(badFrame(bad, sep).trim()), `${bad}: the bad event is not forwarded`);
      t.is(up.received.length - before, 1, `${bad}: not retried after the first byte`);
    }
    const m = await scrape(gw.url);
    t.is(
      value(m, 'gw_upstream_errors_total', { provider: 'up', status: 'upstream_malformed' }),
      bads.length,
      'each counted as an upstream error of the provider',
    );
    t.false(
      gw.logs.some((l) => l.includes('"level":50')),
      'nothing logged as an internal error',
    );
  });

  test(`${name}: a line that is not an SSE field (no colon) is ignored and the stream completes`, async (t) => {
    const p = make('http://x');
    const { gw, script } = await rig(t, make);
    const sep = sepOf(p.upstream);
    script.next = [[...p.upstream.slice(0, p.before), `this line has no colon${sep}`, `{"looks":"like json"}${sep}`, ...p.upstream.slice(p.before)]];
    const r = await post(gw, p);
    t.is(r.status, 200);
    const text = await r.text();
    t.regex(text, p.terminator);
    t.false(text.includes('no colon') || text.includes('looks'));
  });
}
