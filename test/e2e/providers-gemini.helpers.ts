/**
 * Shared setup of the gemini e2e tests: a mock Gemini API on a real socket, gw in front
 * of it, and the official clients pointed at gw.
 */
import type { ExecutionContext } from 'ava';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startUpstream, type Handler, type MockUpstream } from '../helpers/upstream.ts';

export const GEMINI_KEY = 'gk-test-gemini-0123456789';
export const MODEL = 'gemini-3-pro-preview';
export const EMBED_MODEL = 'gemini-embedding-001';

export interface GeminiRig {
  up: MockUpstream;
  gw: TestGateway;
  openai: OpenAI;
  anthropic: Anthropic;
}

/**
 * Starts the mock upstream with `handler` and gw with one gemini provider on it.
 * `providerToml` replaces the default `models`/`max_retries` lines (retries off so each
 * test sees exactly the upstream calls it caused).
 */
export async function geminiRig(
  t: ExecutionContext,
  handler: Handler,
  opts: { providerToml?: string; level?: 'warn' | 'debug'; baseUrlSuffix?: string } = {},
): Promise<GeminiRig> {
  const up = await startUpstream(handler);
  t.teardown(() => up.close());
  const lines = opts.providerToml ?? `models = ["${MODEL}", "${EMBED_MODEL}"]\nmax_retries = 0`;
  const gw = await startGateway(baseConfig(`[providers.gemini]\napi_key = "${GEMINI_KEY}"\nbase_url = "${up.origin}${opts.baseUrlSuffix ?? ''}"\n${lines}\n`), {
    level: opts.level ?? 'warn',
  });
  t.teardown(() => gw.stop());
  return {
    up,
    gw,
    openai: new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 }),
  };
}

/** Frames literal GenerateContentResponse objects the way Gemini's alt=sse does (CRLF). */
export function geminiSse(events: unknown[]): string {
  return events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join('');
}

/** The `data:` payloads of an SSE body (common format), `[DONE]` included. */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((f) => f.startsWith('data: '))
    .map((f) => f.slice('data: '.length));
}
