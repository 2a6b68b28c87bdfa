/**
 * Workloads of the content view (test/helpers/converter-workloads.ts includes them): each
 * protocol's reader reading a request, an answer and a stream of n items, and every text
 * part set (what a masking guardrail does), edits committed. "wide arguments" is one tool
 * call whose JSON-text arguments hold n strings: written back once, not once per string.
 * A checkout without the content view (an older one, for `bench/linear.ts --before`) has none.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Workload } from './converter-workloads.ts';

type Mod = Record<string, any>;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The content-view workloads of the checkout at `root`. */
export async function contentWorkloads(root: string): Promise<Workload[]> {
  if (!existsSync(join(root, 'lib/content/view.ts'))) return [];
  const load = (rel: string): Promise<Mod> => import(pathToFileURL(join(root, rel)).href);
  const [view, parts, chat, messages, responses, gemini] = await Promise.all([
    load('lib/content/view.ts'),
    load('lib/content/parts.ts'),
    load('protocols/openai-chat/content.ts'),
    load('protocols/anthropic-messages/content.ts'),
    load('protocols/openai-responses/content.ts'),
    load('protocols/gemini/content.ts'),
  ]);

  /** Every text of `texts()` set, then committed: the parts counted. */
  const maskAll = (texts: () => Array<{ set(t: string): void }>, at: Mod): number => {
    const all = texts();
    for (const part of all) part.set('[MASKED]');
    at.commit();
    return all.length;
  };
  const request = (reader: Mod, body: Mod) => () => {
    const at = new parts.Edits(true);
    const content = view.requestContent(reader, body, at);
    return maskAll(() => content.texts(), at);
  };
  const answer = (reader: Mod, body: Mod) => () => {
    const at = new parts.Edits(true);
    const content = view.answerContent(reader, body, at);
    return maskAll(() => content.texts(), at);
  };
  const stream = (reader: Mod, events: Mod[]) => () => {
    let count = 0;
    for (const event of events) {
      const at = new parts.Edits(true);
      const content = view.eventContent(reader, event, at);
      count += maskAll(() => content.texts(), at) + content.finish.length;
    }
    return count;
  };
  const args = (n: number) => JSON.stringify({ path: 'a.txt', lines: range(n).map((i) => `line ${i}`) });

  return [
    {
      name: 'content openai-chat: request (long)',
      n: 750,
      prepare: (n) =>
        request(chat.chatContent, {
          model: 'm',
          messages: range(n).map((i) =>
            i % 3 === 0
              ? { role: 'user', content: [{ type: 'text', text: `u${i}` }] }
              : i % 3 === 1
                ? { role: 'assistant', content: `a${i}`, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: `{"q":"${i}"}` } }] }
                : { role: 'tool', tool_call_id: `c${i - 1}`, content: `r${i}` },
          ),
          tools: range(n).map((i) => ({ type: 'function', function: { name: `f${i}`, description: `d${i}`, parameters: { type: 'object' } } })),
        }),
    },
    {
      name: 'content openai-chat: request (wide arguments)',
      n: 3000,
      prepare: (n) =>
        request(chat.chatContent, {
          model: 'm',
          messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args(n) } }] }],
        }),
    },
    {
      name: 'content openai-chat: response (wide)',
      n: 1500,
      prepare: (n) =>
        answer(chat.chatContent, {
          id: 'x',
          model: 'm',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: 'x',
                tool_calls: range(n).map((i) => ({ id: `c${i}`, type: 'function', function: { name: 'f', arguments: `{"i":"${i}"}` } })),
              },
              finish_reason: 'tool_calls',
            },
          ],
        }),
    },
    {
      name: 'content openai-chat: stream',
      n: 3000,
      prepare: (n) =>
        stream(
          chat.chatContent,
          range(n).map((i) => ({
            id: 'c',
            model: 'm',
            choices: [{ index: 0, delta: i % 2 ? { content: `t${i}` } : { tool_calls: [{ index: 0, function: { arguments: `${i}` } }] }, finish_reason: null }],
          })),
        ),
    },
    {
      name: 'content anthropic-messages: request (long)',
      n: 750,
      prepare: (n) =>
        request(messages.messagesContent, {
          model: 'm',
          max_tokens: 5,
          system: [{ type: 'text', text: 's' }],
          messages: range(n).map((i) =>
            i % 2
              ? {
                  role: 'assistant',
                  content: [
                    { type: 'thinking', thinking: `r${i}`, signature: 'x' },
                    { type: 'tool_use', id: `t${i}`, name: 'f', input: { q: `${i}`, deep: { list: [`a${i}`] } } },
                  ],
                }
              : {
                  role: 'user',
                  content: [
                    { type: 'tool_result', tool_use_id: `t${i - 1}`, content: [{ type: 'text', text: `r${i}` }] },
                    { type: 'text', text: `u${i}` },
                  ],
                },
          ),
        }),
    },
    {
      name: 'content anthropic-messages: response (wide)',
      n: 1500,
      prepare: (n) =>
        answer(messages.messagesContent, {
          id: 'msg',
          model: 'c',
          content: range(n).map((i) => (i % 2 ? { type: 'text', text: `t${i}` } : { type: 'tool_use', id: `t${i}`, name: 'f', input: { i: `${i}` } })),
          stop_reason: 'tool_use',
        }),
    },
    {
      name: 'content anthropic-messages: stream',
      n: 3000,
      prepare: (n) =>
        stream(
          messages.messagesContent,
          range(n).map((i) =>
            i % 2
              ? { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `t${i}` } }
              : { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: `${i}` } },
          ),
        ),
    },
    {
      name: 'content openai-responses: request (long)',
      n: 750,
      prepare: (n) =>
        request(responses.responsesContent, {
          model: 'm',
          instructions: 'i',
          input: range(n).map((i) =>
            i % 3 === 0
              ? { type: 'message', role: 'user', content: [{ type: 'input_text', text: `u${i}` }] }
              : i % 3 === 1
                ? { type: 'function_call', call_id: `c${i}`, name: 'f', arguments: `{"q":"${i}"}` }
                : { type: 'function_call_output', call_id: `c${i - 1}`, output: `o${i}` },
          ),
        }),
    },
    {
      name: 'content openai-responses: response (wide)',
      n: 1500,
      prepare: (n) =>
        answer(responses.responsesContent, {
          id: 'r',
          model: 'm',
          status: 'completed',
          output: range(n).map((i) =>
            i % 2
              ? { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `t${i}` }] }
              : { type: 'function_call', call_id: `c${i}`, name: 'f', arguments: `{"i":"${i}"}` },
          ),
        }),
    },
    {
      name: 'content openai-responses: stream',
      n: 3000,
      prepare: (n) =>
        stream(
          responses.responsesContent,
          range(n).map((i) =>
            i % 10 === 9
              ? {
                  type: 'response.output_item.done',
                  output_index: 0,
                  item: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `done ${i}` }] },
                }
              : { type: 'response.output_text.delta', output_index: 0, delta: `t${i}` },
          ),
        ),
    },
    {
      name: 'content gemini: request (long)',
      n: 750,
      prepare: (n) =>
        request(gemini.geminiContent, {
          systemInstruction: { parts: [{ text: 's' }] },
          contents: range(n).map((i) =>
            i % 2
              ? { role: 'model', parts: [{ text: `t${i}` }, { functionCall: { name: 'f', args: { q: `${i}` } } }] }
              : { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: `o${i}` } } }, { text: `u${i}` }] },
          ),
        }),
    },
    {
      name: 'content gemini: response (wide)',
      n: 1500,
      prepare: (n) =>
        answer(gemini.geminiContent, {
          candidates: [
            {
              content: { role: 'model', parts: range(n).map((i) => (i % 2 ? { text: `t${i}` } : { functionCall: { name: 'f', args: { i: `${i}` } } })) },
              finishReason: 'STOP',
            },
          ],
        }),
    },
    {
      name: 'content gemini: stream',
      n: 3000,
      prepare: (n) =>
        stream(
          gemini.geminiContent,
          range(n).map((i) => ({
            candidates: [{ content: { role: 'model', parts: [i % 3 ? { text: `t${i}` } : { functionCall: { name: 'f', args: { i: `${i}` } } }] }, index: 0 }],
          })),
        ),
    },
  ];
}
