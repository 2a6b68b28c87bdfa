/**
 * What the otel extension keeps of a client's strings is bounded (issue 38, item 1):
 * `GET /v1/otel/spans` answers within ANSWER_MAX_CHARS whatever its spans hold (where one JSON
 * text of them would be past V8's longest string), captured content stays within its room with
 * the newest messages kept, stop sequences are cut and counted, and a histogram past its series
 * limit grows no further.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, type ReadableSpan } from '@opentelemetry/sdk-trace';
import test from 'ava';
import { STOP_SEQUENCE_MAX_CHARS, STOP_SEQUENCES_MAX, TRUNCATED } from '../../plugins/extensions/otel/bounded.ts';
import { contentRoom, inputContent, outputContent } from '../../plugins/extensions/otel/content.ts';
import { requestAttributes } from '../../plugins/extensions/otel/genai.ts';
import { AttributeLayout, DeltaHistogram, MAX_SERIES } from '../../plugins/extensions/otel/histograms.ts';
import { ANSWER_MAX_CHARS, spansAnswer, tracesOf } from '../../plugins/extensions/otel/recent.ts';
import { SpanFactory } from '../../plugins/extensions/otel/span.ts';
import { requestContext } from '../helpers/request-context.ts';
import { answerContent, READ_ONLY } from '../../lib/content/view.ts';
import { chatContent } from '../../protocols/openai-chat/content.ts';

/** A request of `format` read by its content view. */
const view = (format: string, body: Record<string, unknown>) => requestContext('m', body, format).content();

test('GET /v1/otel/spans answers at most ANSWER_MAX_CHARS, newest traces first, where the spans as one JSON text are past the longest string', (t) => {
  const ended: ReadableSpan[] = [];
  const spans = new SpanFactory(new AlwaysOnSampler(), resourceFromAttributes({}), { name: 'gw', version: '1' }, { onEnd: (s) => ended.push(s) });
  // one string, referenced by every span: 6 MiB each in the answer, 120 of them past V8's limit (about 2^29)
  const big = 'x'.repeat(6 * 1_048_576);
  for (let i = 0; i < 120; i++) {
    const s = spans.startTrace(ROOT_CONTEXT, 'POST /v1/chat/completions', SpanKind.SERVER, 1_700_000_000_000 + i, undefined);
    s.setAttribute('big', big);
    s.setAttribute('n', i);
    s.end(1_700_000_000_001 + i);
  }
  const q = { limit: 200 };
  // as one JSON text (what the route answered before: 500, "Invalid string length")
  t.true(tracesOf(ended, q).length * big.length > 2 ** 29);
  const answer = spansAnswer(ended, q);
  t.true(answer.text.length <= ANSWER_MAX_CHARS, `${answer.text.length} characters`);
  const traces = JSON.parse(answer.text) as Array<{ spans: Array<{ attributes: { n: number } }> }>;
  t.is(traces.length, 5);
  t.is(answer.omitted, 115);
  t.deepEqual(
    traces.map((x) => x.spans[0]!.attributes.n),
    [119, 118, 117, 116, 115],
  );
  t.deepEqual(spansAnswer(ended, { limit: 3 }, ANSWER_MAX_CHARS).omitted, 0);
});

test('captured content stays within its room, newest messages kept, and says it was cut', (t) => {
  const max = 2048;
  const messages = Array.from({ length: 100_000 }, (_, i) => ({ role: 'user', content: `message ${i} ${'y'.repeat(100)}` }));
  const input = inputContent(view('openai-chat', { messages, system: 'x' }), max);
  const json = JSON.stringify(input.messages.value);
  t.true(json.length <= contentRoom(max) * 1.25, `${json.length} characters for a room of ${contentRoom(max)}`);
  t.true(input.messages.cut);
  const kept = input.messages.value;
  t.regex(kept.at(-1)!.parts[0]!.content!, /^message 99999 /, 'the newest message is kept');
  t.regex(kept[0]!.parts[0]!.content!, /^message 9\d{4} /);

  // ids and names a client chose are cut too (roles are the view's five)
  const call = { id: 'i'.repeat(10_000), type: 'function', function: { name: 'n'.repeat(10_000), arguments: '{}' } };
  const odd = inputContent(
    view('openai-chat', {
      messages: [
        { role: 'r'.repeat(10_000), content: 'hi' },
        { role: 'assistant', tool_calls: [call] },
      ],
    }),
    max,
  );
  t.is(odd.messages.value[0]!.role, 'user');
  const part = odd.messages.value[1]!.parts[0]!;
  t.is(part.id!.length, 257);
  t.is(part.name!.length, 257);

  const small = inputContent(view('anthropic-messages', { system: 'be brief', messages: [{ role: 'user', content: 'hi' }] }), max);
  t.false(small.messages.cut);
  t.deepEqual(small.messages.value, [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]);
  t.deepEqual(small.system, { value: [{ type: 'text', content: 'be brief' }], cut: false });

  const choices = Array.from({ length: 1000 }, () => ({ message: { role: 'assistant', content: 'z'.repeat(2000) }, finish_reason: 'stop' }));
  const output = outputContent(answerContent(chatContent, { choices }, READ_ONLY), max);
  t.true(JSON.stringify(output.value).length <= contentRoom(max) * 1.25);
  t.true(output.cut);
});

test('stop sequences: at most 16, each cut to 256 characters, and the attribute named in gw.truncated', (t) => {
  const stop = Array.from({ length: 100 }, (_, i) => `${i}${'s'.repeat(10_000)}`);
  const a = requestAttributes(requestContext('m', { model: 'm', stop_sequences: stop }, 'anthropic-messages'));
  const kept = a['gen_ai.request.stop_sequences'] as string[];
  t.is(kept.length, STOP_SEQUENCES_MAX);
  for (const s of kept) t.is(s.length, STOP_SEQUENCE_MAX_CHARS + 1);
  t.deepEqual(a[TRUNCATED], ['gen_ai.request.stop_sequences']);

  const plain = requestAttributes(requestContext('m', { model: 'm', stop: ['\n\n'] }));
  t.deepEqual(plain['gen_ai.request.stop_sequences'], ['\n\n']);
  t.false(TRUNCATED in plain);
});

test(`past ${MAX_SERIES} series, values of 100,000 new attribute sets grow the histogram no further`, (t) => {
  const h = new DeltaHistogram('d', '', 's', [1]);
  const L = new AttributeLayout(['op', 'model', 'provider', 'response', 'error.type']);
  // the last series of the limit is the overflow series
  for (let i = 0; i < MAX_SERIES - 1; i++) h.record(1, L, 'chat', `m${i}`, 'p', 'r', 'e');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const names = Array.from({ length: 100_000 }, (_, i) => `made-up-${i}-${'n'.repeat(100)}`);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (const name of names) h.record(1, L, 'chat', name, 'p', 'r', 'e');
  gc();
  const grown = (process.memoryUsage().heapUsed - before) / 1048576;
  t.is(names.length, 100_000);
  t.log(`heap growth over 100,000 attribute sets past the limit: ${grown.toFixed(1)} MiB`);
  t.true(grown < 4, `${grown.toFixed(1)} MiB`);
  const points = h.take([1, 0], [2, 0])!.dataPoints;
  t.is(points.length, MAX_SERIES);
  t.is(points.at(-1)!.value.count, 100_000, 'the overflow series counts them all');
});
