/**
 * The `mock` kind: an offline, deterministic provider for trying gw without a network.
 * It answers with the last user message, cut to the request's output cap (`max_tokens`,
 * `max_completion_tokens`: then `finish_reason: "length"`, as a vendor does), streams it
 * word by word (`delay_ms` between words), reports usage (tokens = whitespace-separated
 * words) and returns deterministic embeddings. Never used as a stand-in in the tests of other kinds.
 */
import { hash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  badRequest,
  type ChatCompletionChunk,
  type ChatMessage,
  type ChatRequest,
  type ChatResult,
  defineProvider,
  type EmbeddingsRequest,
  type Provider,
  providerBaseSchema,
  type Usage,
} from 'gw/plugin';
import { z } from 'zod';

const schema = providerBaseSchema.extend({
  api_key: z.string().optional(),
  models: z.array(z.string().min(1)).default(['mock-1']),
  /** Pause between streamed words, ms. */
  delay_ms: z.number().int().min(0).max(10_000).default(30),
  /** Dimensions of the mock embeddings. */
  dimensions: z.number().int().min(1).max(4096).default(8),
});

/** Per-request bounds (OpenAI's own: 2048 inputs; the largest embedding models have 3072-4096 dimensions). */
const MAX_INPUTS = 2048;
const MAX_DIMENSIONS = 4096;
/**
 * Floats per embeddings answer (inputs × dimensions): each is built and serialized on the
 * event loop, ~10 MB of JSON per million (about 0.3 s of CPU); 2048 × 4096 would be 79 MB.
 */
export const MAX_EMBEDDING_FLOATS = 1_048_576;

/** Text of the last user message ('' when none). */
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

/**
 * `text` cut to its first `cap` words (tokens, as countTokens counts them), and whether it
 * was cut; whole when `cap` is undefined or null.
 */
function capped(text: string, cap: number | null | undefined): { text: string; cut: boolean } {
  if (cap === undefined || cap === null) return { text, cut: false };
  const words = /\S+/g;
  let end = 0;
  for (let n = 0; n < cap; n++) {
    if (words.exec(text) === null) return { text, cut: false };
    end = words.lastIndex;
  }
  return words.exec(text) === null ? { text, cut: false } : { text: text.slice(0, end), cut: true };
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
      const { text: answer, cut } = capped(lastUserText(req.messages), req.max_completion_tokens ?? req.max_tokens);
      const finish = cut ? 'length' : 'stop';
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
            choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: finish }],
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
        yield chunk({}, finish);
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
      if (inputs.length * dims > MAX_EMBEDDING_FLOATS)
        throw badRequest(
          `input, dimensions: ${inputs.length} inputs × ${dims} dimensions is ${inputs.length * dims} floats; the mock kind answers at most ${MAX_EMBEDDING_FLOATS} per request (send fewer inputs or ask for fewer dimensions)`,
          'input',
        );
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

/** A unit vector derived from the SHA-256 of the text (a chain of hashes, 32 dimensions each), rounded to 6 decimals. */
function vectorOf(text: string, dims: number): number[] {
  const out = new Array<number>(dims);
  let block = hash('sha256', text, 'buffer');
  let squares = 0;
  for (let i = 0; i < dims; i++) {
    if (i > 0 && i % 32 === 0) block = hash('sha256', block, 'buffer');
    const x = block[i % 32]! / 127.5 - 1;
    out[i] = x;
    squares += x * x;
  }
  const norm = Math.sqrt(squares) || 1;
  for (let i = 0; i < dims; i++) out[i] = Math.round((out[i]! / norm) * 1e6) / 1e6;
  return out;
}
