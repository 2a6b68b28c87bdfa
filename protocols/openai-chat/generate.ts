/**
 * POST /v1/chat/completions as a generate declaration: the common format itself, so no
 * translation on this side (providers translate to their upstreams); streams are framed by
 * `chatFrames`.
 */
import type { ChatCompletionChunk, ChatRequest } from 'gw/plugin';
import { bodyOf, type Generate } from 'gw/plugin/format';
import { chatErrorFrame, chatFrames } from './chat-frames.ts';
import { chatRequestSchema } from './schema.ts';
import { chatAffinity } from './affinity.ts';

/** What a chat answer needs of the request: whether the client asked for the usage chunk. */
export interface ChatFacts {
  includeUsage: boolean;
}

/** The fields of a chat request that cap its output (the newer one, then the deprecated one). */
const CAP_FIELDS = ['max_completion_tokens', 'max_tokens'] as const;

/** The generate route of POST /v1/chat/completions: body (and its bytes, when unchanged) to `provider.chat`, chunks out as yielded. */
export const chatGenerate: Generate<undefined, ChatFacts, ChatCompletionChunk> = {
  label: 'chat',
  schema: chatRequestSchema,
  read(ctx) {
    const body = bodyOf(ctx);
    return {
      facts: {
        route: 'chat',
        model: body.model as string,
        stream: body.stream === true,
        maxOutputTokens: positive(body.max_completion_tokens) ?? positive(body.max_tokens),
        choices: positive(body.n),
      },
    };
  },
  affinity: chatAffinity,
  capOutput(body, cap) {
    const out = { ...body };
    for (const k of CAP_FIELDS) if (typeof out[k] === 'number' && (out[k] as number) > cap) out[k] = cap;
    return out;
  },
  translated: {
    toCommon: (body) => ({
      req: body as ChatRequest,
      unchanged: true,
      extra: { includeUsage: (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true },
    }),
    fromCommon: (completion, raw) => raw ?? JSON.stringify(completion),
    stream: ({ hooks, rc, extra }) => ({
      frames: (items, progress) => chatFrames(hooks, rc, items, extra.includeUsage, progress),
      errorFrame: chatErrorFrame,
    }),
  },
};

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}
