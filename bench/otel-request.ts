/**
 * One synthetic gateway request of the bench's JSON chat shape (one key, one model, one
 * successful attempt, the recorded answer and its usage) driven through the otel-relevant
 * hooks as the kernel calls them: onArrival, onUpstreamStart/End, onResponse, onFinish.
 * Shared by bench/otel-micro.ts (the extension's taps) and bench/otel-encode.ts (the spans
 * they record).
 */
import { RequestContext } from '../core/context.ts';
import { type ArrivingRequest, type FinishedRequest, type Hooks, ResponseInfo, type UpstreamAttempt } from '../core/hooks.ts';
import { keyInfo } from '../lib/keys.ts';
import type { Logger } from 'pino';

export const KEY = keyInfo('default', {});
export const MODEL = 'gpt-4o-mini';
const BODY = { model: MODEL, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64, temperature: 0.2 };
const RAW = JSON.stringify(BODY);
const ANSWER = {
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, prompt_tokens_details: { cached_tokens: 0 } },
};
const ANSWER_TEXT = JSON.stringify(ANSWER);
const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer sk-x' };

/** Runs request number `i` through the used hooks of `hooks`. */
export async function chatRequest(hooks: Hooks, i: number, log: Logger): Promise<void> {
  const t0 = performance.now();
  let state = new Map<string | symbol, unknown>();
  let traceId: string | undefined;
  if (hooks.onArrival.isUsed()) {
    const a: ArrivingRequest = {
      id: `req-${i}`,
      route: 'chat',
      method: 'POST',
      path: '/v1/chat/completions',
      headers: HEADERS,
      time: performance.timeOrigin + t0,
      state,
      traceId: undefined,
      setHeader: () => {},
    };
    hooks.onArrival.call(a);
    state = a.state;
    traceId = a.traceId;
  }
  const rc = new RequestContext(
    `req-${i}`,
    { route: 'chat', format: 'openai-chat', operation: 'generate', model: MODEL, stream: false },
    KEY,
    BODY,
    RAW,
    MODEL,
    t0,
    log,
    state,
    traceId,
  );
  rc.attempts = 1;
  const at: UpstreamAttempt = {
    provider: 'upstream',
    kind: 'openai',
    model: MODEL,
    fallback: false,
    number: 1,
    retry: 0,
    startedAt: performance.now(),
    headers: undefined,
    endedAt: 0,
    outcome: undefined,
    error: undefined,
  };
  if (hooks.onUpstreamStart.isUsed()) hooks.onUpstreamStart.call(rc, at);
  at.endedAt = performance.now();
  at.outcome = 'ok';
  if (hooks.onUpstreamEnd.isUsed()) hooks.onUpstreamEnd.call(rc, at);
  rc.provider = 'upstream';
  rc.servedModel = MODEL;
  rc.upstreamMs = at.endedAt - at.startedAt;
  rc.usage = ANSWER.usage;
  rc.status = 200;
  if (hooks.onResponse.isUsed()) await hooks.onResponse.promise(rc, new ResponseInfo(ANSWER_TEXT, ANSWER, undefined));
  const f: FinishedRequest = {
    id: rc.id,
    route: 'chat',
    time: performance.timeOrigin + t0,
    totalMs: performance.now() - t0,
    ttfbMs: 1,
    status: 200,
    key: KEY,
    model: MODEL,
    rc,
    error: undefined,
    rawBody: RAW,
    traceId,
    state,
  };
  if (hooks.onFinish.isUsed()) hooks.onFinish.call(f);
}
