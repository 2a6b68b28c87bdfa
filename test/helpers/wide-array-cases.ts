/**
 * The cases of test/unit/wide-arrays.test.ts, run in a worker thread with the main thread's
 * stack (node's default, about 1 MB: what gw serves requests on; a worker's default is 4 MB,
 * where a spread only fails past ~500,000 elements). The worker posts what the case returned,
 * or the error it threw.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { formatTable } from '../../cli/client/output.ts';
import type { ChatCompletionChunk, ChatMessage } from '../../lib/common/chat.ts';
import { CommonToMessagesStep } from '../../protocols/anthropic-messages/from-common-step.ts';
import { messagesToChatRequest } from '../../protocols/anthropic-messages/to-chat-request.ts';
import { geminiToChatRequest } from '../../protocols/gemini/to-chat-request.ts';
import { listInputItems } from '../../plugins/formats/openai-responses/retrieve.ts';
import { ResponseStore } from '../../plugins/formats/openai-responses/response-store.ts';
import { toMessagesRequest } from '../../protocols/anthropic-messages/to-messages-request.ts';
import { toGeminiRequest } from '../../protocols/gemini/to-gemini-request.ts';

export const WIDE = 130_000;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const textParts = (n: number) => range(n).map((i) => ({ type: 'text', text: `t${i}` }));

/** Each case: what the test compares, computed from a 130,000-item input. */
export const cases: Record<string, () => unknown> = {
  'messages tool results': () => {
    const { req } = messagesToChatRequest({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'user', content: range(WIDE).map((i) => ({ type: 'tool_result', tool_use_id: `t${i}`, content: 'r' })) }],
    });
    return { messages: req.messages.length, last: req.messages[WIDE - 1]!.tool_call_id };
  },
  'messages stop sequences': () => {
    const m = new CommonToMessagesStep({ requestModel: 'm', stopSequences: range(WIDE).map((i) => `stop-${i}`) });
    const chunk = (delta: object, finish: string | null = null) =>
      ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] }) as ChatCompletionChunk;
    m.push(chunk({ content: `the end stop-${WIDE - 1}` }));
    m.push(chunk({}, 'stop'));
    return m.end()[1];
  },
  'gemini function responses': () => {
    // in order (the reverse order is the size test's: the old pairing was quadratic there)
    const { req } = geminiToChatRequest(
      {
        contents: [
          { role: 'user', parts: [{ text: 'go' }] },
          { role: 'model', parts: range(WIDE).map((i) => ({ functionCall: { id: `c${i}`, name: 'f', args: {} } })) },
          { role: 'user', parts: range(WIDE).map((i) => ({ functionResponse: { id: `c${i}`, name: 'f', response: { output: i } } })) },
        ],
      },
      { model: 'm', stream: false },
    );
    return { messages: req.messages.length, first: req.messages[2]!.tool_call_id, last: req.messages[1 + WIDE]!.tool_call_id };
  },
  'anthropic system parts': () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: textParts(WIDE) },
      { role: 'user', content: 'hi' },
    ];
    const { body } = toMessagesRequest({ model: 'claude-sonnet-4-5', messages });
    return { systemEnd: (body.system as string).slice(-7) };
  },
  'gemini system parts and merged turns': () => {
    const { body } = toGeminiRequest({
      model: 'g',
      messages: [
        { role: 'system', content: textParts(WIDE) },
        { role: 'user', content: 'hi' },
        { role: 'user', content: textParts(WIDE) },
      ],
    });
    return { system: body.systemInstruction!.parts.length, contents: body.contents.length, parts: body.contents[0]!.parts.length };
  },
  'responses input items': async () => {
    const values = new Map<string, string>();
    const store = new ResponseStore(
      {
        get: async (k: string) => values.get(k),
        set: async (k: string, v: string) => {
          values.set(k, v);
        },
      } as never,
      1,
    );
    const first = 'resp_000000000000000000000000000000000000000000000001';
    const second = 'resp_000000000000000000000000000000000000000000000002';
    const items = (p: string) => range(WIDE).map((i) => ({ type: 'message', role: 'user', content: `${p}${i}` }));
    await store.put('k', { response: { id: first, output: [] }, input: items('a'), chain: [], provider: 'p', native: false }, 0);
    await store.put('k', { response: { id: second, output: [] }, input: items('b'), chain: [first], provider: 'p', native: false }, undefined);
    const list = async (query: Record<string, string>) => {
      const ctx: Record<string, unknown> = { params: { id: second }, query, state: { id: 'r', key: { name: 'k' } }, set: () => undefined };
      await listInputItems(store)(ctx as never);
      const page = JSON.parse(ctx.body as string);
      return { contents: page.data.map((d: { content: string }) => d.content), more: page.has_more };
    };
    return [await list({ limit: '2', order: 'asc' }), await list({ limit: '100', order: 'asc', after: `msg_${second.slice(5)}_in${WIDE - 2}` })];
  },
  'cli table': () => {
    const lines = formatTable([{ header: 'name', value: (r: number) => `key-${r}` }], range(WIDE));
    return { lines: lines.length, head: lines[0] };
  },
};

// in a worker: runs each named case in turn (one module load for all) and posts each outcome
if (parentPort && Array.isArray(workerData)) {
  for (const name of workerData as string[]) {
    try {
      parentPort.postMessage({ name, value: await cases[name]!() });
    } catch (err) {
      parentPort.postMessage({ name, error: `${(err as Error).name}: ${(err as Error).message}` });
    }
  }
}
