import { readFileSync } from 'node:fs';
import test from 'ava';
import { fromGeminiResponse } from '../../protocols/gemini/from-gemini-response.ts';
import { fromGeminiFinishReason } from '../../protocols/gemini/map-finish-reason.ts';
import { fromUsageMetadata as mapUsage } from '../../protocols/gemini/map-usage.ts';
import { counterIdSource, parseToolCallId } from '../../protocols/gemini/tool-call-ids.ts';
import type { GenerateContentResponse } from '../../protocols/gemini/types.ts';

const fixture = (name: string): GenerateContentResponse =>
  JSON.parse(readFileSync(new URL(`../fixtures/gemini/vercel-ai/${name}`, import.meta.url), 'utf8')) as GenerateContentResponse;
const meta = () => ({ id: 'chatcmpl-1', model: 'gemini-3-pro-preview', created: 1_760_000_000, idSource: counterIdSource('r') });

test('google-text.json → one stop choice with the text and OpenAI-semantics usage', (t) => {
  t.deepEqual(fromGeminiResponse(fixture('google-text.json'), meta()), {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'gemini-3-pro-preview',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.", refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: 9,
      completion_tokens: 28 + 244,
      total_tokens: 281,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 244 },
    },
  });
});

test('google-reasoning.json → text; thoughts are only counted (no thought parts were asked for)', (t) => {
  const res = fromGeminiResponse(fixture('google-reasoning.json'), meta());
  t.is(res.choices[0]!.message.content, 'There are **3** "r"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.');
  t.is(res.choices[0]!.message.reasoning_content, undefined);
  t.deepEqual([res.usage?.prompt_tokens, res.usage?.completion_tokens, res.usage?.total_tokens], [9, 29 + 282, 320]);
});

test('google-tool-call.json → tool_calls with the signature in the minted id, content null, finish tool_calls', (t) => {
  const raw = fixture('google-tool-call.json');
  const signature = raw.candidates![0]!.content!.parts![0]!.thoughtSignature!;
  const res = fromGeminiResponse(raw, meta());
  const choice = res.choices[0]!;
  t.is(choice.finish_reason, 'tool_calls');
  t.is(choice.message.content, null);
  t.deepEqual(choice.message.tool_calls, [
    {
      id: `call_gw_r0_ts_${Buffer.from(signature, 'base64').toString('base64url')}`,
      type: 'function',
      function: { name: 'weather', arguments: '{"location":"San Francisco"}' },
    },
  ]);
  t.deepEqual(parseToolCallId(choice.message.tool_calls![0]!.id), { minted: true, signature });
  t.deepEqual([res.usage?.prompt_tokens, res.usage?.completion_tokens, res.usage?.total_tokens], [29, 15 + 893, 937]);
});

// Literal responses for cases the recordings lack.

test('thought parts → reasoning_content; text and calls keep their order per kind; candidates → choices', (t) => {
  const res = fromGeminiResponse(
    {
      candidates: [
        {
          index: 0,
          finishReason: 'STOP',
          content: {
            role: 'model',
            parts: [
              { text: 'Let me think. ', thought: true },
              { text: 'Done.', thought: true },
              { text: 'Calling.' },
              { functionCall: { name: 'f', args: { x: 1 } } },
            ],
          },
        },
        { index: 1, finishReason: 'MAX_TOKENS', content: { role: 'model', parts: [{ text: 'Cut' }] } },
      ],
    },
    meta(),
  );
  t.deepEqual(
    res.choices.map((c) => [c.index, c.finish_reason, c.message.content, c.message.reasoning_content]),
    [
      [0, 'tool_calls', 'Calling.', 'Let me think. Done.'],
      [1, 'length', 'Cut', undefined],
    ],
  );
  t.is(res.choices[0]!.message.tool_calls![0]!.id, 'call_gw_r0');
  t.is(res.usage, undefined);
});

test('a blocked prompt → one empty content_filter choice', (t) => {
  const res = fromGeminiResponse({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } }, meta());
  t.deepEqual(res.choices, [{ index: 0, message: { role: 'assistant', content: '', refusal: null }, finish_reason: 'content_filter', logprobs: null }]);
  t.is(res.usage?.prompt_tokens, 5);
  t.is(res.usage?.completion_tokens, 0);
});

test('fromGeminiFinishReason covers the table', (t) => {
  const cases: Array<[string | undefined, boolean, string]> = [
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    ['MAX_TOKENS', false, 'length'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['PROHIBITED_CONTENT', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['IMAGE_SAFETY', false, 'content_filter'],
    ['SAFETY', true, 'content_filter'],
    ['OTHER', false, 'stop'],
    ['LANGUAGE', false, 'stop'],
    ['MALFORMED_FUNCTION_CALL', false, 'stop'],
    ['FINISH_REASON_UNSPECIFIED', false, 'stop'],
    [undefined, false, 'stop'],
  ];
  for (const [reason, calls, expected] of cases) t.is(fromGeminiFinishReason(reason, calls), expected, `${reason} ${calls}`);
});

test('mapUsage adds tool-use prompt tokens to the prompt and thoughts to the completion', (t) => {
  t.deepEqual(
    mapUsage({
      promptTokenCount: 100,
      cachedContentTokenCount: 60,
      toolUsePromptTokenCount: 7,
      candidatesTokenCount: 20,
      thoughtsTokenCount: 30,
      totalTokenCount: 157,
    }),
    {
      prompt_tokens: 107,
      completion_tokens: 50,
      total_tokens: 157,
      prompt_tokens_details: { cached_tokens: 60 },
      completion_tokens_details: { reasoning_tokens: 30 },
    },
  );
});
