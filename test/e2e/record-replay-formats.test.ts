/**
 * Record and replay across every provider kind and every client format: gw records a session
 * of the official clients (openai: chat and Responses, JSON and streams, embeddings;
 * @anthropic-ai/sdk: Messages JSON and streams, count_tokens; @google/genai: generateContent
 * and its stream) on openai, anthropic, gemini, azure, dashscope, zhipu and a self-defined
 * kind — native passthroughs and translations both — against a mock upstream replaying vendor
 * payloads; then the mock is stopped and a gateway of replay providers answers the same
 * session from the cassette: the same text, tool calls (ids, arguments), streamed events,
 * usage and cost. No secret reaches the cassette at any byte, a real-format key in a prompt
 * is scrubbed (and still matches on replay), and a changed prompt is a replay_miss that names
 * the differing path, in each client's own error shape.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import test from 'ava';
import OpenAI from 'openai';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import {
  charged,
  KINDS,
  LEAKY_HEADERS,
  liveProviders,
  type Observation,
  observeAll,
  replayProviders,
  requestLog,
  startWireUpstream,
  WEATHER_TOOL,
} from '../helpers/record-replay.ts';

/** A key in a vendor's format, pasted into a prompt. */
const PASTED_KEY = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const PASTED_AWS = 'AKIAIOSFODNN7EXAMPLE';

test.serial(
  'a session on every kind and client format, recorded, replays offline with the same answers, usage and cost; no secret in the cassette',
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-rr-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const cassette = join(dir, 'session.jsonl');
    await mkdir(join(dir, 'live'));
    await mkdir(join(dir, 'replay'));
    const up = await startWireUpstream();
    const live = await startGateway(baseConfig(`${liveProviders(up.origin)}\n[extensions.request_log]\n[extensions.recorder]\npath = "${cassette}"\n`), {
      dir: join(dir, 'live'),
    });
    const recorded = new Map<string, Observation[]>();
    // a client that sends a cookie and a project header of its own: gw sends neither upstream
    const pasted = new OpenAI({
      baseURL: live.baseURL,
      apiKey: KEY,
      maxRetries: 0,
      defaultHeaders: { cookie: 'client-cookie-secret=1', 'openai-project': 'proj_client_secret_9' },
    });
    let pastedAnswer: unknown;
    let liveLog: Array<Record<string, unknown>>;
    try {
      for (const k of KINDS) recorded.set(k.name, await observeAll({ url: live.url, key: KEY }, k));
      pastedAnswer = (
        await pasted.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `my keys: ${PASTED_KEY} ${PASTED_AWS}` }] })
      ).choices;
      const requests = [...recorded.values()].reduce((n, o) => n + o.length, 0) + 1;
      liveLog = (await requestLog(live.url, ADMIN_TOKEN, requests)).reverse();
    } finally {
      await live.stop({ keepDir: true });
      await up.close();
    }

    const bytes = readFileSync(cassette, 'utf8');
    const lines = bytes
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // every exchange made for a gateway request; count_tokens is estimated (no upstream call) but on Messages-origin kinds and gemini
    t.is(lines.length, up.received.length, 'one entry per upstream exchange');
    t.true(lines.every((e) => e.gw?.request_id && e.gw.key === 'default'));
    t.true(
      lines.some((e) => e.kind === 'dashscope' && e.route === 'POST /apps/anthropic/v1/messages'),
      'a native Messages passthrough on a second origin',
    );
    t.true(lines.some((e) => e.kind === 'gemini' && e.route.endsWith(':streamGenerateContent?alt=sse')));
    t.true(lines.some((e) => e.kind === 'azure' && e.route === 'POST /openai/v1/responses'));
    const answered = lines.filter((e) => e.gw.usage);
    t.true(answered.length > 0 && answered.every((e) => typeof e.gw.cost_usd === 'number' || e.gw.cost_usd === null));
    t.true(
      lines.some((e) => e.response.events?.length > 0 && e.response.complete === true),
      'streams are kept event by event',
    );
    for (const secret of [
      ...KINDS.map((k) => k.apiKey),
      KEY,
      ADMIN_TOKEN,
      ...Object.entries(LEAKY_HEADERS)
        .filter(([h]) => h !== 'x-request-id')
        .map(([, v]) => v),
      'cookie-secret',
      'client-cookie-secret',
      'proj_client_secret_9',
      PASTED_KEY,
      PASTED_AWS,
    ])
      t.false(bytes.includes(secret), `the cassette holds ${secret}`);
    for (const header of [
      'authorization',
      'x-api-key',
      'x-goog-api-key',
      '"api-key"',
      'cookie',
      'openai-project',
      'openai-organization',
      'anthropic-organization-id',
    ])
      t.false(bytes.toLowerCase().includes(header), `the cassette holds the header ${header}`);
    t.true(bytes.includes('[redacted:openai_key]') && bytes.includes('[redacted:aws_access_key_id]'), 'the pasted keys are replaced by what they were');

    // offline: the upstream is gone; every provider replays its own recordings
    const replay = await startGateway(baseConfig(`${replayProviders(cassette)}\n[extensions.request_log]\n`), { dir: join(dir, 'replay') });
    t.teardown(() => replay.stop());
    for (const k of KINDS) t.deepEqual(await observeAll({ url: replay.url, key: KEY }, k), recorded.get(k.name), k.name);
    const again = new OpenAI({ baseURL: replay.baseURL, apiKey: KEY, maxRetries: 0 });
    t.deepEqual(
      (await again.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `my keys: ${PASTED_KEY} ${PASTED_AWS}` }] })).choices,
      pastedAnswer,
      'a prompt holding a key matches its scrubbed recording',
    );
    const replayLog = (await requestLog(replay.url, ADMIN_TOKEN, liveLog.length)).reverse();
    t.deepEqual(replayLog.map(charged), liveLog.map(charged), 'the request log charges the replay as the recording: tokens and cost');
    t.true(
      liveLog.some((e) => typeof e.cost_usd === 'number' && e.cost_usd > 0),
      'bundled prices apply to the replayed kinds',
    );

    // a changed prompt: a 502 replay_miss, in each client's shape, naming the path that differs
    const err = await again.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'What is the weather in Paris? (oai)' }], tools: [WEATHER_TOOL] })
      .catch((e) => e);
    t.true(err instanceof OpenAI.APIError);
    t.is(err.status, 502);
    t.is(err.code, 'replay_miss');
    t.regex(err.message, /cassette .*session\.jsonl/);
    t.regex(
      err.message,
      /first difference at messages\[0\]\.content: recorded "What is the weather in Boston\? \(oai\)", got "What is the weather in Paris\? \(oai\)"/,
    );
    const anthropic = new Anthropic({ baseURL: replay.url, apiKey: KEY, maxRetries: 0 });
    const mErr = await anthropic.messages
      .create({ model: 'claude-3-5-haiku-20241022', max_tokens: 99, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    t.is(mErr.status, 502);
    t.is(mErr.error?.type, 'error');
    t.regex(mErr.error?.error?.message, /^replay_miss: .*first difference at max_tokens: recorded \d+, got 99/);
    const genai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: replay.url } });
    const gErr = await genai.models.generateContent({ model: 'gemini-2.0-flash', contents: 'What is the weather in Rome?' }).catch((e) => e);
    t.is(gErr.status, 502);
    t.regex(gErr.message, /replay_miss: .*first difference at contents\[0\]\.parts\[0\]\.text/);
  },
);
