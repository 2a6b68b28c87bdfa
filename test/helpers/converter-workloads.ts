/**
 * One workload per converter of gw, both directions, every client format and provider kind:
 * an input of `n` items (turns, parts, tool calls, stream events…) built outside the timing,
 * and the converter call on it. Shared by the size test (test/unit/linear-converters.test.ts:
 * time at n and 4n) and its measurement script (bench/linear.ts), which loads the converters
 * from any checkout (`root`) so the code before a change can be measured the same way.
 *
 * Only the converters' public entry points are called, so a change inside a converter needs
 * no change here. "long" inputs have many turns (what an agent's history grows into); "wide"
 * ones put many items in one turn or one answer.
 *
 * Sizes keep every collection built for 4n items small: a few thousand entries. Past about
 * 4,000 entries in a Map or Set, and 16,384 elements in an array, V8 keeps the backing store
 * in its large-object space, where each store costs 2–4× as much: a one-off step (not growth)
 * that would read as super-linear between n and 4n. (Sets of 4,000 and 5,000 strings measured
 * 50 and 190 ns a key; 5,000 to 256,000 stayed at 150–260.) The steps are crossed at 4n with
 * larger sizes: `bench/linear.ts --scale 8` shows the same converters at 8× the items.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { contentWorkloads } from './content-workloads.ts';

/** One converter run: `prepare(n)` builds the input and returns the call to time. */
export interface Workload {
  /** `<side> <format or kind>: <converter> (<shape>)`, e.g. `kind anthropic: request (long)`. */
  name: string;
  /** Items at the smaller size: large enough for a measurable time, 4n small enough to stay quick when linear. */
  n: number;
  prepare(n: number): () => unknown;
}

type Mod = Record<string, any>;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The converters of the checkout at `root` (default: this one). */
export async function converterWorkloads(root = join(import.meta.dirname, '..', '..')): Promise<Workload[]> {
  /** The first of `rels` that exists under `root`: a converter's path now, then where older checkouts had it. */
  const load = (...rels: string[]): Promise<Mod> => {
    const rel = rels.find((r) => existsSync(join(root, r))) ?? rels[0]!;
    return import(pathToFileURL(join(root, rel)).href);
  };
  const [
    messagesIn,
    messagesOut,
    messagesStream,
    geminiIn,
    geminiOut,
    geminiStream,
    geminiEmbed,
    geminiCount,
    responsesIn,
    responsesOut,
    responsesStream,
    responsesRetrieve,
    responsesStore,
    responsesNames,
    anthropicReq,
    anthropicRes,
    anthropicStream,
    geminiReq,
    geminiRes,
    geminiKindStream,
    geminiKindEmbed,
    estimate,
    mock,
  ] = await Promise.all([
    load('protocols/anthropic-messages/to-chat-request.ts', 'plugins/formats/anthropic-messages/to-chat-request.ts'),
    load('protocols/anthropic-messages/from-chat-completion.ts', 'plugins/formats/anthropic-messages/from-chat-completion.ts'),
    load(
      'protocols/anthropic-messages/from-common-step.ts',
      'protocols/anthropic-messages/chunks-to-events.ts',
      'plugins/formats/anthropic-messages/chunks-to-events.ts',
    ),
    load('protocols/gemini/to-chat-request.ts', 'plugins/formats/gemini/to-chat-request.ts'),
    load('protocols/gemini/from-chat-completion.ts', 'plugins/formats/gemini/from-chat-completion.ts'),
    load('protocols/gemini/from-common-step.ts', 'protocols/gemini/chunks-to-stream.ts', 'plugins/formats/gemini/chunks-to-stream.ts'),
    load('protocols/gemini/embed-content.ts', 'plugins/formats/gemini/embeddings.ts'),
    load('protocols/gemini/count-tokens.ts', 'plugins/formats/gemini/count-tokens.ts'),
    load('protocols/openai-responses/to-chat-request.ts', 'plugins/formats/openai-responses/to-chat-request.ts'),
    load('protocols/openai-responses/from-chat-completion.ts', 'plugins/formats/openai-responses/from-chat-completion.ts'),
    load(
      'protocols/openai-responses/from-common-step.ts',
      'protocols/openai-responses/chunks-to-events.ts',
      'plugins/formats/openai-responses/chunks-to-events.ts',
    ),
    load('plugins/formats/openai-responses/retrieve.ts'),
    load('plugins/formats/openai-responses/response-store.ts'),
    load('protocols/openai-responses/map-tools.ts', 'plugins/formats/openai-responses/map-tools.ts'),
    load('protocols/anthropic-messages/to-messages-request.ts', 'plugins/providers/anthropic/to-messages-request.ts'),
    load('protocols/anthropic-messages/from-messages-response.ts', 'plugins/providers/anthropic/from-messages-response.ts'),
    load('protocols/anthropic-messages/to-common-step.ts', 'protocols/anthropic-messages/stream-mapper.ts', 'plugins/providers/anthropic/stream-mapper.ts'),
    load('protocols/gemini/to-gemini-request.ts', 'plugins/providers/gemini/to-gemini-request.ts'),
    load('protocols/gemini/from-gemini-response.ts', 'plugins/providers/gemini/from-gemini-response.ts'),
    load('protocols/gemini/to-common-step.ts', 'protocols/gemini/stream-mapper.ts', 'plugins/providers/gemini/stream-mapper.ts'),
    load('protocols/gemini/batch-embed.ts', 'plugins/providers/gemini/embeddings.ts'),
    load('lib/common/estimate.ts'),
    load('plugins/providers/mock/index.ts'),
  ]);
  const responsesOpts = (body: Mod) => ({
    body,
    requestModel: 'm',
    toolNames: new responsesNames.ToolNames(),
    id: 'resp_0123456789abcdef0123456789abcdef0123456789abcdef',
  });
  const geminiMeta = () => ({ id: 'chatcmpl-x', model: 'g', created: 1, idSource: counter() });
  const mockProvider = mock.default.setup({
    name: 'mock',
    config: { models: ['m'], delay_ms: 0, dimensions: 8, max_retries: 0, weight: 1, timeout_seconds: 600 },
  });

  const content = await contentWorkloads(root);

  return [
    ...content,
    // ---- client formats, request: format → common ----
    {
      name: 'format anthropic-messages: request (long)',
      n: 750,
      prepare: (n) => {
        const body = { model: 'm', max_tokens: 5, messages: messagesLong(n) };
        return () => messagesIn.messagesToChatRequest(body);
      },
    },
    {
      name: 'format anthropic-messages: request (wide)',
      n: 1000,
      prepare: (n) => {
        const body = {
          model: 'm',
          max_tokens: 5,
          stop_sequences: range(n).map((i) => `stop${i}`),
          system: range(n).map((i) => ({ type: 'text', text: `s${i}` })),
          messages: [
            { role: 'user', content: range(n).map((i) => ({ type: 'text', text: `t${i}` })) },
            { role: 'assistant', content: range(n).map((i) => ({ type: 'tool_use', id: `t${i}`, name: 'f', input: { i } })) },
            { role: 'user', content: range(n).map((i) => ({ type: 'tool_result', tool_use_id: `t${i}`, content: [{ type: 'text', text: 'r' }] })) },
          ],
          tools: range(n).map((i) => ({ name: `f${i}`, input_schema: { type: 'object' } })),
        };
        return () => messagesIn.messagesToChatRequest(body);
      },
    },
    {
      name: 'format gemini: request (long)',
      n: 1000,
      prepare: (n) => {
        const contents = range(n).map((i) =>
          i % 2 === 0
            ? { role: 'model', parts: [{ text: 'x' }, { functionCall: { name: `f${(i >> 1) % 7}`, args: { i } } }] }
            : { role: 'user', parts: [{ functionResponse: { name: `f${(i >> 1) % 7}`, response: { output: 'r' } } }, { text: `u${i}` }] },
        );
        const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }, ...contents] };
        return () => geminiIn.geminiToChatRequest(body, { model: 'm', stream: false });
      },
    },
    {
      name: 'format gemini: request (wide calls)',
      n: 400,
      prepare: (n) => {
        // one step with n parallel calls of one function, answered in reverse order by id, then n more answered in order by name
        const body = {
          contents: [
            { role: 'user', parts: [{ text: 'hi' }] },
            { role: 'model', parts: range(n).map((i) => ({ functionCall: { id: `c${i}`, name: 'f', args: { i } } })) },
            { role: 'user', parts: range(n).map((i) => ({ functionResponse: { id: `c${n - 1 - i}`, name: 'f', response: { output: i } } })) },
            { role: 'model', parts: range(n).map((i) => ({ functionCall: { name: 'g', args: { i } } })) },
            { role: 'user', parts: range(n).map((i) => ({ functionResponse: { name: 'g', response: { output: i } } })) },
          ],
        };
        return () => geminiIn.geminiToChatRequest(body, { model: 'm', stream: false });
      },
    },
    {
      name: 'format gemini: request (wide parts and tools)',
      n: 1000,
      prepare: (n) => {
        const body = {
          systemInstruction: { parts: range(n).map((i) => ({ text: `s${i}` })) },
          contents: [{ role: 'user', parts: range(n).map((i) => ({ text: `u${i}` })) }],
          tools: [{ functionDeclarations: range(n).map((i) => ({ name: `f${i}`, parameters: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } })) }],
        };
        return () => geminiIn.geminiToChatRequest(body, { model: 'm', stream: false });
      },
    },
    {
      name: 'format gemini: countTokens (long)',
      n: 1500,
      prepare: (n) => {
        const body = {
          contents: range(n).map((i) => ({ role: i % 2 ? 'model' : 'user', parts: [{ text: `t${i}` }, { functionCall: { name: 'f', args: { i } } }] })),
        };
        return () => geminiCount.estimateCountTokens(body);
      },
    },
    {
      name: 'format openai-responses: request (long)',
      n: 1500,
      prepare: (n) => {
        const input = range(n).map((i) => {
          switch (i % 5) {
            case 0:
              return { type: 'message', role: 'user', content: [{ type: 'input_text', text: `u${i}` }] };
            case 1:
              return { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: `r${i}` }] };
            case 2:
              return { type: 'function_call', call_id: `c${i}`, name: 'f', arguments: '{}' };
            case 3:
              return { type: 'function_call_output', call_id: `c${i - 1}`, output: 'ok' };
            default:
              return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `a${i}` }] };
          }
        });
        const body = { model: 'm', input };
        return () => responsesIn.responsesToChatRequest(body);
      },
    },
    {
      name: 'format openai-responses: request (wide)',
      n: 800,
      prepare: (n) => {
        // n function tools in namespaces of 2; tool_choice allows every namespace by name
        const spaces = Math.ceil(n / 2);
        const tools = range(spaces).map((s) => ({
          type: 'namespace',
          name: `ns${s}`,
          tools: range(2).map((k) => ({ type: 'function', name: `f${k}`, parameters: { type: 'object' } })),
        }));
        const body = {
          model: 'm',
          input: 'hi',
          tools,
          tool_choice: { type: 'allowed_tools', mode: 'auto', tools: range(spaces).map((s) => ({ type: 'namespace', name: `ns${s}` })) },
        };
        return () => responsesIn.responsesToChatRequest(body);
      },
    },
    // ---- client formats, answer: common → format ----
    {
      name: 'format anthropic-messages: response (wide)',
      n: 1500,
      prepare: (n) => {
        const res = completion(n);
        return () => messagesOut.chatCompletionToMessages(res, { requestModel: 'm' });
      },
    },
    {
      name: 'format gemini: response (wide)',
      n: 1500,
      prepare: (n) => {
        const res = completion(n);
        return () => geminiOut.chatCompletionToGemini(res, { includeThoughts: true });
      },
    },
    {
      name: 'format openai-responses: response (wide)',
      n: 1500,
      prepare: (n) => {
        const res = completion(n);
        return () => responsesOut.chatCompletionToResponse(res, responsesOpts({ model: 'm' }));
      },
    },
    {
      name: 'format anthropic-messages: stream',
      n: 1500,
      prepare: (n) =>
        replay(
          chatChunks(n),
          () => new (messagesStream.CommonToMessagesStep ?? messagesStream.ChunksToMessagesEvents)({ requestModel: 'm', stopSequences: ['END'] }),
        ),
    },
    {
      name: 'format gemini: stream',
      n: 1500,
      prepare: (n) => replay(chatChunks(n), () => new (geminiStream.CommonToGeminiStep ?? geminiStream.ChunksToGeminiStream)({ includeThoughts: true })),
    },
    {
      name: 'format openai-responses: stream',
      n: 1500,
      prepare: (n) =>
        replay(chatChunks(n), () => new (responsesStream.CommonToResponsesStep ?? responsesStream.ChunksToResponsesEvents)(responsesOpts({ model: 'm' }))),
    },
    {
      name: 'format gemini: batchEmbedContents (wide)',
      n: 1000,
      prepare: (n) => {
        const body = { requests: range(n).map((i) => ({ model: 'models/e', content: { parts: [{ text: `t${i}` }] } })) };
        const res = { object: 'list', model: 'e', data: range(n).map((i) => ({ object: 'embedding', index: n - 1 - i, embedding: [0.1, 0.2] })), usage: {} };
        return () => [geminiEmbed.batchEmbedContentsToEmbeddings(body, 'e'), geminiEmbed.embeddingsToBatchEmbedContents(res)];
      },
    },
    {
      name: 'format openai-responses: input_items of a stored response (wide)',
      n: 1500,
      prepare: (n) => {
        const store = new responsesStore.ResponseStore(memoryStore(), 1);
        const id = 'resp_0123456789abcdef0123456789abcdef0123456789abcdef';
        const input = range(n).map((i) => ({ type: 'message', role: 'user', content: `u${i}` }));
        const ready = store.put('k', { response: { id, output: [] }, input, chain: [], provider: 'p', native: false });
        const route = responsesRetrieve.listInputItems(store);
        return async () => {
          await ready;
          const ctx: Mod = {
            params: { id },
            query: { limit: '100', order: 'asc', after: `msg_${id.slice(5)}_in${n - 50}` },
            state: { id: 'r', key: { name: 'k' } },
          };
          ctx.set = () => undefined;
          await route(ctx);
          return ctx.body.length;
        };
      },
    },
    // ---- provider kinds, request: common → native ----
    {
      name: 'kind anthropic: request (long)',
      n: 1500,
      prepare: (n) => {
        // short user turns and tool results, all of one role: every one merges into the turn before
        const messages = range(n).map((i) => (i % 4 === 3 ? { role: 'tool', tool_call_id: `c${i}`, content: 'r' } : { role: 'user', content: `hi ${i}` }));
        const req = { model: 'claude-sonnet-4-5', messages };
        return () => anthropicReq.toMessagesRequest(req);
      },
    },
    {
      name: 'kind anthropic: request (wide)',
      n: 500,
      prepare: (n) => {
        const req = {
          model: 'claude-sonnet-4-5',
          messages: [
            { role: 'system', content: range(n).map((i) => ({ type: 'text', text: `s${i}` })) },
            { role: 'user', content: range(n).map((i) => ({ type: 'text', text: `u${i}` })) },
            { role: 'assistant', content: null, tool_calls: range(n).map((i) => toolCall(i)) },
            ...range(n).map((i) => ({ role: 'tool', tool_call_id: `c${i}`, content: 'r' })),
          ],
          tools: range(n).map((i) => ({ type: 'function', function: { name: `f${i}`, parameters: { type: 'object' } } })),
          stop: range(n).map((i) => `stop${i}`),
        };
        return () => anthropicReq.toMessagesRequest(req);
      },
    },
    {
      name: 'kind gemini: request (long)',
      n: 1500,
      prepare: (n) => {
        const messages = range(n).map((i) => {
          switch (i % 4) {
            case 0:
              return { role: 'user', content: `hi ${i}` };
            case 1:
              return { role: 'assistant', content: null, tool_calls: [toolCall(i)] };
            case 2:
              return { role: 'tool', tool_call_id: `c${i - 1}`, content: '{"ok":true}' };
            default:
              return { role: 'user', content: `more ${i}` };
          }
        });
        return () => geminiReq.toGeminiRequest({ model: 'g', messages });
      },
    },
    {
      name: 'kind gemini: request (wide)',
      n: 500,
      prepare: (n) => {
        const req = {
          model: 'g',
          messages: [
            { role: 'system', content: range(n).map((i) => ({ type: 'text', text: `s${i}` })) },
            { role: 'user', content: range(n).map((i) => ({ type: 'text', text: `u${i}` })) },
            { role: 'user', content: range(n).map((i) => ({ type: 'text', text: `v${i}` })) },
            { role: 'assistant', content: range(n).map((i) => ({ type: 'text', text: `a${i}` })), tool_calls: range(n).map((i) => toolCall(i)) },
            ...range(n).map((i) => ({ role: 'tool', tool_call_id: `c${i}`, content: '{"ok":true}' })),
          ],
          tools: range(n).map((i) => ({ type: 'function', function: { name: `f${i}`, parameters: { type: 'object' } } })),
        };
        return () => geminiReq.toGeminiRequest(req);
      },
    },
    {
      name: 'kind gemini: embeddings (wide)',
      n: 1500,
      prepare: (n) => {
        const req = { model: 'e', input: range(n).map((i) => `t${i}`), encoding_format: 'base64' };
        const res = { embeddings: range(n).map(() => ({ values: [0.1, 0.2, 0.3] })) };
        return () => [geminiKindEmbed.toBatchEmbedRequest(req, 'e'), geminiKindEmbed.fromBatchEmbedResponse(res, 'e', 'base64', req.input)];
      },
    },
    {
      name: 'kind mock: chat (long)',
      n: 1500,
      prepare: (n) => {
        const req = { model: 'm', messages: range(n).map((i) => ({ role: i % 2 ? 'assistant' : 'user', content: `word ${i} and more` })) };
        return () => mockProvider.chat(req, { signal: new AbortController().signal });
      },
    },
    // ---- provider kinds, answer: native → common ----
    {
      name: 'kind anthropic: response (wide)',
      n: 1500,
      prepare: (n) => {
        const res = {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'c',
          content: range(n).map((i) =>
            i % 3 === 0
              ? { type: 'text', text: `t${i}` }
              : i % 3 === 1
                ? { type: 'thinking', thinking: `r${i}` }
                : { type: 'tool_use', id: `t${i}`, name: 'f', input: { i } },
          ),
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        };
        return () => anthropicRes.fromMessagesResponse(res, { created: 1 });
      },
    },
    {
      name: 'kind gemini: response (wide)',
      n: 1500,
      prepare: (n) => {
        const res = {
          candidates: [
            {
              content: {
                role: 'model',
                parts: range(n).map((i) => (i % 2 ? { text: `t${i}`, thought: i % 4 === 1 } : { functionCall: { name: 'f', args: { i } } })),
              },
              finishReason: 'STOP',
            },
          ],
          usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
        };
        return () => geminiRes.fromGeminiResponse(res, geminiMeta());
      },
    },
    {
      name: 'kind anthropic: stream',
      n: 1000,
      prepare: (n) => replay(anthropicEvents(n), () => new (anthropicStream.MessagesToCommonStep ?? anthropicStream.AnthropicStreamMapper)({ created: 1 })),
    },
    {
      name: 'kind gemini: stream',
      n: 1000,
      prepare: (n) => replay(geminiEvents(n), () => new (geminiKindStream.GeminiToCommonStep ?? geminiKindStream.GeminiStreamMapper)(geminiMeta())),
    },
    // ---- core ----
    {
      name: 'core: prompt estimate (long)',
      n: 1500,
      prepare: (n) => {
        const body = { messages: range(n).map((i) => ({ role: 'user', content: [{ type: 'text', text: `t${i}` }] })) };
        return () => estimate.estimateTokens(body);
      },
    },
  ];
}

/** A stream translator, new for each run, fed every item of `items`, then ended. */
function replay(items: unknown[], make: () => { push(item: any): unknown[]; end(): unknown[] }): () => number {
  return () => {
    const m = make();
    let k = 0;
    for (const item of items) k += m.push(item).length;
    return k + m.end().length;
  };
}

/** Deterministic tool-call id nonces (the gemini kind mints ids). */
function counter(): () => string {
  let i = 0;
  return () => `n${i++}`;
}

function toolCall(i: number) {
  return { id: `c${i}`, type: 'function', function: { name: 'f', arguments: `{"i":${i}}` } };
}

/** n Messages turns: user text, assistant text + tool_use, user tool_result + text, … */
function messagesLong(n: number): Mod[] {
  return range(n).map((i) => {
    if (i % 3 === 0) return { role: 'user', content: `hi ${i}` };
    if (i % 3 === 1)
      return {
        role: 'assistant',
        content: [
          { type: 'text', text: `a${i}` },
          { type: 'tool_use', id: `t${i}`, name: 'f', input: { i } },
        ],
      };
    return {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `t${i - 1}`, content: 'ok' },
        { type: 'text', text: `u${i}` },
      ],
    };
  });
}

/** A completion whose message holds n tool calls (and text and reasoning). */
function completion(n: number): Mod {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'x', reasoning_content: 'r', tool_calls: range(n).map((i) => toolCall(i)) },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** n common-format chunks: runs of reasoning, text and tool-call fragments, then the finish and usage chunks. */
function chatChunks(n: number): Mod[] {
  const chunk = (delta: Mod, finish: string | null = null): Mod => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const out: Mod[] = [chunk({ role: 'assistant', content: '' })];
  let call = 0;
  for (let i = 0; out.length < n - 2; i++) {
    const phase = Math.floor(i / 10) % 3;
    if (phase === 0) out.push(chunk({ reasoning_content: `r${i} ` }));
    else if (phase === 1) out.push(chunk({ content: `t${i} ` }));
    else {
      if (i % 10 === 0) out.push(chunk({ tool_calls: [{ index: call, id: `c${call}`, type: 'function', function: { name: 'f', arguments: '' } }] }));
      else out.push(chunk({ tool_calls: [{ index: call, function: { arguments: `${i},` } }] }));
      if (i % 10 === 9) call++;
    }
  }
  out.push(chunk({}, 'tool_calls'));
  out.push({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: 1, completion_tokens: n, total_tokens: n + 1 },
  });
  return out;
}

/** n Messages stream events (SSE data as an upstream sends it): text, thinking and tool_use blocks. */
function anthropicEvents(n: number): Array<{ event: string; data: string }> {
  const ev = (o: Mod) => ({ event: o.type as string, data: JSON.stringify(o) });
  const out = [
    ev({
      type: 'message_start',
      message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'c', content: [], usage: { input_tokens: 3, output_tokens: 1 } },
    }),
  ];
  let block = 0;
  while (out.length < n - 2) {
    const kind = block % 3;
    const start =
      kind === 0 ? { type: 'text', text: '' } : kind === 1 ? { type: 'thinking', thinking: '' } : { type: 'tool_use', id: `t${block}`, name: 'f', input: {} };
    out.push(ev({ type: 'content_block_start', index: block, content_block: start }));
    for (let k = 0; k < 8; k++) {
      const delta =
        kind === 0
          ? { type: 'text_delta', text: `w${k} ` }
          : kind === 1
            ? { type: 'thinking_delta', thinking: `w${k} ` }
            : { type: 'input_json_delta', partial_json: `${k}` };
      out.push(ev({ type: 'content_block_delta', index: block, delta }));
    }
    out.push(ev({ type: 'content_block_stop', index: block }));
    block++;
  }
  out.push(ev({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: n } }));
  out.push(ev({ type: 'message_stop' }));
  return out;
}

/** n Gemini stream events: text, thought and function-call parts, running usage, then the finish. */
function geminiEvents(n: number): Array<{ data: string }> {
  const out: Array<{ data: string }> = [];
  for (let i = 0; i < n - 1; i++) {
    const part = i % 3 === 0 ? { text: `t${i} ` } : i % 3 === 1 ? { text: `r${i} `, thought: true } : { functionCall: { name: 'f', args: { i } } };
    out.push({
      data: JSON.stringify({
        candidates: [{ content: { role: 'model', parts: [part] }, index: 0 }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: i + 1 },
      }),
    });
  }
  out.push({
    data: JSON.stringify({
      candidates: [{ content: { role: 'model', parts: [{ text: '.' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: n },
    }),
  });
  return out;
}

/** The values part of a Store, in memory: what ResponseStore uses. */
function memoryStore(): Mod {
  const m = new Map<string, string>();
  return {
    get: async (k: string) => m.get(k),
    set: async (k: string, v: string) => {
      m.set(k, v);
    },
    delete: async (k: string) => {
      m.delete(k);
    },
  };
}

/** `gc()`, exposed at run time (a flag set now applies to contexts created after). */
const collect: (opts?: { type: 'minor' | 'major' }) => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as (opts?: { type: 'minor' | 'major' }) => void;
})();

/**
 * Node flags of a measuring process (see {@link cpuMs}): no helper threads, so the process's
 * CPU time is the measured thread's; a young generation of one fixed size, so every run
 * scavenges alike (V8 otherwise resizes it between runs, after each GC); and the `gw-source`
 * condition, so the converters' imports of `gw/plugin` resolve to the sources.
 */
export const MEASURE_FLAGS = ['--single-threaded', '--min-semi-space-size=16', '--max-semi-space-size=16', '--conditions=gw-source'];

/**
 * CPU time of this process so far, ms. On a shared machine wall time is stretched whenever
 * another process has the CPU (4× and more under a parallel test run); the process's CPU time
 * is not, and Linux counts the running thread's part to the nanosecond (a thread's own
 * counter, `threadCpuUsage`, only in whole ticks). Measure in a process of its own: every
 * thread's CPU counts (test files running in ava's other worker threads would too).
 */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Time (ms, {@link cpuMs}) of one run of `w` at n and at 4n, each the minimum over `rounds`
 * interleaved rounds (a slow spell of a shared machine hits both sizes alike), after one
 * warm-up round. At n the time is a quarter of four runs on four distinct inputs, so both
 * sizes touch as much memory and allocate as much (one 4n input fits the CPU's caches no
 * better than four n inputs: else cache misses, not the converter, would set the ratio).
 * Every measurement starts after a full GC. Inputs are built outside the timing. Rounds stop
 * early once `budgetMs` of wall time is spent (a super-linear converter at 4n can take
 * seconds). A size whose run throws gets `NaN`, and its error in `errors`.
 */
export async function minTimes(w: Workload, n: number, rounds: number, budgetMs = 2000): Promise<{ ms: [number, number]; errors: Array<string | undefined> }> {
  const sets = [[1, 2, 3, 4].map(() => w.prepare(n)), [w.prepare(4 * n)]];
  const ms: [number, number] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  const errors: Array<string | undefined> = [undefined, undefined];
  const run = async (k: 0 | 1): Promise<number> => {
    collect({ type: 'minor' });
    const t0 = cpuMs();
    try {
      for (const call of sets[k]!) await call();
    } catch (err) {
      errors[k] = `${(err as Error).name}: ${(err as Error).message.slice(0, 80)}`;
    }
    return (cpuMs() - t0) / sets[k]!.length;
  };
  const start = performance.now();
  await run(0);
  await run(1);
  for (let r = 0; r < rounds && performance.now() - start < budgetMs; r++) {
    if (errors[0] === undefined) ms[0] = Math.min(ms[0], await run(0));
    if (errors[1] === undefined) ms[1] = Math.min(ms[1], await run(1));
  }
  return { ms: [errors[0] === undefined ? ms[0] : Number.NaN, errors[1] === undefined ? ms[1] : Number.NaN], errors };
}
