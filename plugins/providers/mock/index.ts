/**
 * The `mock` kind: an offline, deterministic provider for trying gw without a network.
 * It answers with the last user message, streams it word by word (`delay_ms` between
 * words), reports usage (tokens = whitespace-separated words) and returns deterministic
 * embeddings. Never used as a stand-in in the tests of other kinds.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { ChatCompletionChunk, ChatMessage, ChatRequest, EmbeddingsRequest, Usage } from '../../../core/format/chat.ts';
import { badRequest } from '../../../core/error-codes.ts';
import { defineProvider } from '../../../core/plugins/contract.ts';
import { providerBaseSchema } from '../../../core/plugins/provider-schema.ts';
import type { ChatResult, Provider } from '../../../core/provider.ts';

const schema = providerBaseSchema.extend({
  api_key: z.string().optional(),
  models: z.array(z.string().min(1)).default(['mock-1']),
  /** Pause between streamed words, ms. */
  delay_ms: z.number().int().min(0).max(10_000).default(30),
  /** Dimensions of the mock embeddings. */
  dimensions: z.number().int().min(1).max(4096).default(8),
});

/** Text of the last user message ('' when none). */
/** Per-request bounds (OpenAI's own: 2048 inputs; the largest embedding models have 3072-4096 dimensions). */
const MAX_INPUTS = 2048;
const MAX_DIMENSIONS = 4096;

function lastUserText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) return m.content.map((p) => (p.type === 'text' ? String((p as { text: string }).text) : '')).join('');
  }
  return '';
}

function countTokens(text: string): number {
  const t = text.trim();
  return t ? t.split(/\s+/).length : 0;
}

function usageOf(req: ChatRequest, answer: string): Usage {
  let prompt = 0;
  for (const m of req.messages) prompt += countTokens(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''));
  const completion = countTokens(answer);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

export default defineProvider({
  name: 'mock',
  configSchema: schema,
  routing: ['max_retries', 'weight'],
  setup({ name, config }): Provider {
    const chat = async (req: ChatRequest, call: { signal: AbortSignal }): Promise<ChatResult> => {
      const answer = lastUserText(req.messages);
      const usage = usageOf(req, answer);
      const id = `chatcmpl-mock-${randomUUID()}`;
      const created = Math.floor(Date.now() / 1000);
      if (req.stream !== true) {
        return {
          type: 'json',
          body: {
            id,
            object: 'chat.completion',
            created,
            model: req.model,
            choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
            usage,
          },
        };
      }
      const chunk = (delta: ChatCompletionChunk['choices'][0]['delta'], finish: string | null): ChatCompletionChunk => ({
        id,
        object: 'chat.completion.chunk',
        created,
        model: req.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      async function* words(): AsyncGenerator<ChatCompletionChunk> {
        yield chunk({ role: 'assistant', content: '' }, null);
        const parts = answer.split(/(?<=\s)/);
        for (const w of parts) {
          if (config.delay_ms) await sleep(config.delay_ms, undefined, { signal: call.signal });
          yield chunk({ content: w }, null);
        }
        yield chunk({}, 'stop');
        yield { id, object: 'chat.completion.chunk', created, model: req.model, choices: [], usage };
      }
      return { type: 'stream', chunks: words() };
    };
    const embeddings = async (req: EmbeddingsRequest) => {
      const inputs = typeof req.input === 'string' ? [req.input] : (req.input as unknown[]).map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
      // bounded like a real vendor's: the work is on the event loop, and `npm start` serves this kind
      if (inputs.length > MAX_INPUTS) throw badRequest(`input: at most ${MAX_INPUTS} inputs per request for the mock kind (got ${inputs.length})`, 'input');
      if (req.dimensions !== undefined && req.dimensions > MAX_DIMENSIONS)
        throw badRequest(`dimensions: at most ${MAX_DIMENSIONS} for the mock kind (got ${req.dimensions})`, 'dimensions');
      const dims = req.dimensions ?? config.dimensions;
      const data = inputs.map((text, index) => {
        const v = vectorOf(text, dims);
        const embedding = req.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
        return { object: 'embedding' as const, index, embedding };
      });
      const prompt = inputs.reduce((n, t) => n + countTokens(t), 0);
      return { body: { object: 'list' as const, data, model: req.model, usage: { prompt_tokens: prompt, total_tokens: prompt } } };
    };
    return { name, kind: 'mock', models: config.models, chat, embeddings, listModels: async () => config.models };
  },
});

/** A unit vector derived from the SHA-256 of the text. */
function vectorOf(text: string, dims: number): number[] {
  const out: number[] = [];
  let block = createHash('sha256').update(text).digest();
  for (let i = 0; i < dims; i++) {
    if (i > 0 && i % 32 === 0) block = createHash('sha256').update(block).digest();
    out.push(block[i % 32]! / 127.5 - 1);
  }
  let squares = 0;
  for (const x of out) squares += x * x;
  const norm = Math.sqrt(squares) || 1;
  return out.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}
