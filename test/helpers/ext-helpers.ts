/**
 * Shared pieces of the extension tests: a common-format mock upstream whose usage is
 * chosen per test, provider sections, and admin calls.
 */
import type { ExecutionContext } from 'ava';
import OpenAI from 'openai';
import { ADMIN_TOKEN, baseConfig, KEY, KEY2, startGateway, type TestGateway } from './gateway.ts';
import { fixture, fixtureJson, replyJson, replySse, startUpstream, toSse, type MockUpstream } from './upstream.ts';

export { ADMIN_TOKEN, KEY, KEY2 };

/** What the mock upstream reports: fixed, or computed from the request. */
export type UsageOf = (json: any) => { prompt_tokens: number; completion_tokens: number };

/**
 * A common-format upstream: chat JSON from the spec example, streams from the openai-node
 * recording, embeddings from the openai-node fixture, each with `usage` replaced by
 * `usageOf(request)` (default: the recordings' own usage). `delayMs` delays every answer.
 */
export async function openaiUpstream(opts: { usageOf?: UsageOf; delayMs?: number } = {}): Promise<MockUpstream> {
  const chat = fixtureJson('openai/spec-examples/chat.default.response.json');
  const streamText = fixture('openai/openai-node/chat.stream.include-usage.sse');
  const emb = fixtureJson('openai/openai-node/embeddings-float-response.json');
  return startUpstream(async (req, res) => {
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
    const u = opts.usageOf?.(req.json);
    const usage = u ? { ...u, total_tokens: u.prompt_tokens + u.completion_tokens } : undefined;
    if (req.url.endsWith('/embeddings'))
      return replyJson(res, 200, { ...emb, usage: usage ? { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens } : emb.usage });
    if (req.json?.stream) {
      if (!usage) return replySse(res, streamText);
      const items = streamText
        .split('\n\n')
        .filter((l) => l.startsWith('data: {'))
        .map((l) => JSON.parse(l.slice(6)));
      const last = items[items.length - 1];
      last.usage = usage;
      return replySse(res, toSse(items));
    }
    replyJson(res, 200, usage ? { ...chat, usage } : chat);
  });
}

/** `[providers.up]` serving `models` from `up`, no retries. */
export function providerSection(up: MockUpstream, models: string[] = ['gpt-4o', 'text-embedding-3-small']): string {
  return `[providers.up]\napi_key = "sk-upstream-secret-value"\nbase_url = "${up.origin}/v1"\nmax_retries = 0\nmodels = ${JSON.stringify(models)}\n`;
}

/** Starts gw with the base config + `extra`; stops it and `up` at teardown. */
export async function gatewayWith(t: ExecutionContext, up: MockUpstream, extra: string, opts: Parameters<typeof startGateway>[1] = {}): Promise<TestGateway> {
  const gw = await startGateway(baseConfig(`${providerSection(up)}\n${extra}`), opts);
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return gw;
}

/** Starts `n` gateways with one config (instances sharing the `[store]` that `toml` names); stops them and `up` at teardown. */
export async function gatewaysOf(t: ExecutionContext, up: MockUpstream, toml: string, n: number): Promise<TestGateway[]> {
  const gws: TestGateway[] = [];
  t.teardown(async () => {
    for (const g of gws) await g.stop();
    await up.close();
  });
  for (let i = 0; i < n; i++) gws.push(await startGateway(toml));
  return gws;
}

/** An openai client for gw with `key`, no retries (a 429 must surface, not be retried). */
export function client(gw: TestGateway, key = KEY): OpenAI {
  return new OpenAI({ baseURL: gw.baseURL, apiKey: key, maxRetries: 0 });
}

/** Admin call with a JSON body (none when `body` is undefined): status and parsed body (undefined when empty). */
export async function adminJson(gw: { url: string }, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

/** Admin call: returns status and parsed body (undefined when empty). */
export async function admin(gw: { url: string }, method: string, path: string, token = ADMIN_TOKEN): Promise<{ status: number; body: any }> {
  const r = await fetch(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

/** POST a JSON body with a gateway key; raw Response. */
export function post(gw: { url: string }, path: string, body: unknown, key = KEY): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const HI = [{ role: 'user' as const, content: 'hi' }];

/** A response's JSON body, untyped (tests assert its shape). */
export const json = (r: Response): Promise<any> => r.json();
