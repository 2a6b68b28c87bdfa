/**
 * DashScope reports explicit prompt-cache writes in fields of its own
 * (`prompt_tokens_details.cache_creation_input_tokens`); these fix-ups add the common
 * format's `cache_write_tokens` beside them, so accounting prices the writes and an OpenAI
 * client reads them where gw documents them. Answers without a cache write pass unchanged
 * (stream chunks unparsed, completions with the upstream's bytes).
 */
import type { ChatCompletion, ChatCompletionChunk } from 'gw/plugin';
import { mayReportCacheWrites, withCacheWrites } from 'gw/plugin/openai-chat';

/** A stream chunk with its usage's cache writes under the common names. */
export function mapDashScopeChunk(chunk: ChatCompletionChunk): ChatCompletionChunk[] {
  if (!chunk.usage) return [chunk];
  const usage = withCacheWrites(chunk.usage);
  return [usage === chunk.usage ? chunk : { ...chunk, usage }];
}

/** A completion with its usage's cache writes under the common names; the same object when nothing changes. */
export function mapDashScopeCompletion(res: ChatCompletion): ChatCompletion {
  if (!res.usage) return res;
  const usage = withCacheWrites(res.usage);
  return usage === res.usage ? res : { ...res, usage };
}

export { mayReportCacheWrites as dashScopeChunkNeedsMap };
