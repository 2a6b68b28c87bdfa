/**
 * Reassembling what an OpenAI client received from a gw stream, reading the SSE
 * frames of a raw response, and the tool of the recorded tool calls, for the providers-* and
 * messages-* tests.
 */
import type OpenAI from 'openai';

/** The weather tool of the recorded DashScope tool-call payloads (vercel-ai's alibaba fixtures). */
export const WEATHER = {
  type: 'function' as const,
  function: {
    name: 'weather',
    description: 'Get the weather',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};

export interface Assembled {
  content: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finish: string | null;
  /** Every chunk carrying usage (must be exactly the last one, with `choices: []`). */
  usageChunks: OpenAI.Chat.Completions.ChatCompletionChunk[];
  chunks: OpenAI.Chat.Completions.ChatCompletionChunk[];
}

/** Reads an openai-client stream to the end, concatenating deltas per tool-call index. */
export async function assemble(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>): Promise<Assembled> {
  const out: Assembled = { content: '', reasoning: '', toolCalls: [], finish: null, usageChunks: [], chunks: [] };
  for await (const c of stream) {
    out.chunks.push(c);
    if (c.usage) out.usageChunks.push(c);
    const ch = c.choices[0];
    if (!ch) continue;
    const d = ch.delta as typeof ch.delta & { reasoning_content?: string | null };
    if (d?.content) out.content += d.content;
    if (d?.reasoning_content) out.reasoning += d.reasoning_content;
    for (const tc of d?.tool_calls ?? []) {
      const t = (out.toolCalls[tc.index] ??= { id: '', name: '', arguments: '' });
      if (tc.id) t.id = tc.id;
      if (tc.function?.name) t.name += tc.function.name;
      if (tc.function?.arguments) t.arguments += tc.function.arguments;
    }
    if (ch.finish_reason) out.finish = ch.finish_reason;
  }
  return out;
}

/** SSE frames of a raw response body: `{event, data}` per frame; comments skipped. */
export function frames(text: string): Array<{ event: string | undefined; data: string }> {
  return text
    .split(/\r?\n\r?\n/)
    .filter((f) => f.trim() !== '' && !f.startsWith(':'))
    .map((f) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of f.split(/\r?\n/)) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      return { event, data: data.join('\n') };
    });
}
