/**
 * The `usage` extension: prompt and completion tokens per gateway key and canonical model,
 * as the upstream reported them (common semantics), for every route and for streams
 * whether or not the client asked for usage. Committed to the store in onResponse, which
 * the core awaits before the response's last byte: an answered request's usage survives a
 * restart and a crash. Cache hits, early responses and failed calls count nothing.
 * Admin: GET /v1/usage → `[{key, model, prompt_tokens, completion_tokens, total_tokens, requests}]`.
 */
import { z } from 'zod';
import type { RequestContext } from '../../../core/context.ts';
import { defineExtension } from '../../../core/plugins/contract.ts';
import type { Store } from '../../../core/store/types.ts';
import { accountOf, answeredUpstream } from '../../../core/plugins/helpers.ts';

const PLUGIN_NAME = 'usage';
const PREFIX = 'u:';

const schema = z.strictObject({});

/** One entry of GET /v1/usage. */
export interface UsageEntry {
  key: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  requests: number;
}

/** Counter key for a (key name, model) pair; JSON so any model id is safe in it. */
function counterKey(name: string, model: string): string {
  return PREFIX + JSON.stringify([name, model]);
}

function record(store: Store) {
  return async function recordUsage(rc: RequestContext): Promise<void> {
    if (!answeredUpstream(rc) || rc.status >= 400 || rc.operation === 'count') return;
    const u = rc.usage;
    await store.incr(counterKey(accountOf(rc), rc.servedModel), {
      prompt_tokens: u?.prompt_tokens ?? 0,
      completion_tokens: u?.completion_tokens ?? 0,
      requests: 1,
    });
  };
}

/** Every usage entry, in (key, model) order. */
export async function listUsage(store: Store): Promise<UsageEntry[]> {
  const out: UsageEntry[] = [];
  for await (const [k, v] of store.entries(PREFIX)) {
    const [key, model] = JSON.parse(k.slice(PREFIX.length)) as [string, string];
    const c = JSON.parse(v) as Record<string, number>;
    const prompt = c.prompt_tokens ?? 0;
    const completion = c.completion_tokens ?? 0;
    out.push({ key, model, prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, requests: c.requests ?? 0 });
  }
  return out;
}

export default defineExtension({
  name: PLUGIN_NAME,
  configSchema: schema,
  setup({ store, hooks, routes }) {
    hooks.onResponse.tapPromise(PLUGIN_NAME, record(store));
    routes.get('/v1/usage', async (ctx) => {
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(await listUsage(store));
    });
  },
});
