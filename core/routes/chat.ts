/**
 * POST /v1/chat/completions: validate → resolve model → onRequest → onCacheLookup
 * (non-streaming) → provider → onResponse → answer; streams pumped chunk by chunk.
 */
import type { Context } from 'koa';
import type { RequestContext } from '../context.ts';
import { dispatch } from '../dispatch.ts';
import { dataField, KEEP_ALIVE_MS } from '../http/sse-write.ts';
import { primeFirst } from '../resilience/prime.ts';
import type { ChatCompletionChunk, ChatRequest } from '../format/chat.ts';
import type { Gateway } from '../gateway.ts';
import type { StreamItem } from '../provider.ts';
import { chatRequestSchema } from '../schemas.ts';
import { admit, answered, forModel, upstreamCall } from './admit.ts';
import { sendJson } from './respond.ts';
import { pumpStream } from './stream.ts';

export function chatRoute(ref: () => Gateway) {
  return async function chatCompletions(ctx: Context): Promise<void> {
    const gw = ref();
    const admitted = await admit(gw, ctx, 'chat', chatRequestSchema);
    if (!admitted) return;
    const { rc, route } = admitted;
    const body = rc.body;
    const stream = rc.stream;
    const hooks = gw.hooks;
    if (!stream && hooks.onCacheLookup.isUsed()) {
      const hit = await hooks.onCacheLookup.promise(rc);
      if (hit) {
        rc.cacheHit = true;
        rc.status = 200;
        if (hooks.onResponse.isUsed()) await hooks.onResponse.promise(rc, { body: hit.body });
        return sendJson(ctx, 200, hit.body, hit.headers);
      }
    }
    const up = upstreamCall(ctx, rc);
    const signal = up.call.signal;
    const t0 = performance.now();
    const dispatched = await dispatch(gw.table, route, signal, async (p, model) => {
      const r = await p.chat(...forModel(rc, up.body as ChatRequest, up.call, model));
      if (r.type === 'json') return r;
      const primed = await primeFirst(r.chunks, KEEP_ALIVE_MS);
      return { type: 'stream' as const, chunks: primed.items, ready: primed.ready };
    });
    const result = dispatched.value;
    const headers = answered(rc, dispatched);
    if (result.type === 'json') {
      rc.upstreamMs = performance.now() - t0;
      rc.usage = result.body.usage ?? undefined;
      const text = result.raw ?? JSON.stringify(result.body);
      rc.status = 200;
      if (hooks.onResponse.isUsed()) await hooks.onResponse.promise(rc, { body: text });
      return sendJson(ctx, 200, text, headers);
    }
    const includeUsage = (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true;
    await pumpStream(gw, ctx, rc, headers, signal, t0, chatFrames(gw, rc, result.chunks, includeUsage), false, result.ready);
  };
}

const USAGE = /"usage"\s*:\s*\{/;

/**
 * Turns provider stream items into SSE frames for the client, enforcing DESIGN.md's usage
 * rule: the client gets exactly one usage chunk (`choices: []`), after the finish chunk,
 * and only when it asked; no other chunk carries usage. Raw items are parsed only when a
 * hook needs the chunk or the text may carry usage.
 */
async function* chatFrames(gw: Gateway, rc: RequestContext, items: AsyncIterable<StreamItem>, includeUsage: boolean): AsyncGenerator<string, string | undefined> {
  const onChunk = gw.hooks.onChunk;
  const tapped = onChunk.isUsed();
  let usageChunk: ChatCompletionChunk | string | undefined;
  for await (const item of items) {
    let text: string | undefined;
    let chunk: ChatCompletionChunk | undefined;
    if (typeof item === 'string') {
      text = item;
      if (tapped || USAGE.test(item)) chunk = JSON.parse(item) as ChatCompletionChunk;
    } else chunk = item;
    if (chunk?.usage) {
      rc.usage = chunk.usage;
      if (chunk.choices.length === 0) {
        usageChunk = text ?? chunk;
        if (tapped) onChunk.call(rc, chunk);
        continue;
      }
      // usage on a content chunk (some compatible upstreams): moved to its own chunk
      usageChunk = { id: chunk.id, object: 'chat.completion.chunk', created: chunk.created, model: chunk.model, choices: [], usage: chunk.usage };
      chunk = { ...chunk, usage: null };
      text = undefined;
    }
    if (tapped && chunk) onChunk.call(rc, chunk);
    yield text === undefined ? `data: ${JSON.stringify(chunk)}\n\n` : `${dataField(text)}\n\n`;
  }
  if (includeUsage && usageChunk !== undefined) yield `${typeof usageChunk === 'string' ? dataField(usageChunk) : `data: ${JSON.stringify(usageChunk)}`}\n\n`;
  return 'data: [DONE]\n\n';
}
