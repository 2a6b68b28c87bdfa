/**
 * Zhipu (GLM) answers in the common format with one vocabulary difference: a moderated
 * answer ends with `finish_reason: "sensitive"`, which OpenAI clients know as
 * `content_filter` (docs/design.md "finish_reason mapping"). Its other quirks need no code:
 * usage on the finish chunk (the core moves it to its own chunk), no
 * `finish_reason: null` on intermediate chunks, and a tool call in one delta are all valid
 * for OpenAI clients.
 * @see Zhipu BigModel API reference: 对话补全 (chat completions)
 */
import type { ChatCompletion, ChatCompletionChunk } from 'gw/plugin';

const SENSITIVE = 'sensitive';

/** True when a raw stream chunk may need {@link mapZhipuChunk}; lets every other chunk pass unparsed. */
export function zhipuChunkNeedsMap(data: string): boolean {
  return data.includes('"sensitive"');
}

/** A stream chunk with `sensitive` finish reasons rewritten to `content_filter` (input untouched). */
export function mapZhipuChunk(chunk: ChatCompletionChunk): ChatCompletionChunk[] {
  if (!chunk.choices?.some((c) => c.finish_reason === SENSITIVE)) return [chunk];
  return [{ ...chunk, choices: chunk.choices.map((c) => (c.finish_reason === SENSITIVE ? { ...c, finish_reason: 'content_filter' } : c)) }];
}

/** A completion with `sensitive` finish reasons rewritten; the same object when nothing changes. */
export function mapZhipuCompletion(res: ChatCompletion): ChatCompletion {
  if (!res.choices.some((c) => c.finish_reason === SENSITIVE)) return res;
  return { ...res, choices: res.choices.map((c) => (c.finish_reason === SENSITIVE ? { ...c, finish_reason: 'content_filter' } : c)) };
}
