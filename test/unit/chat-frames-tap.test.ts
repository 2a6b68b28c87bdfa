/**
 * A chat stream's frames are the same whether an onChunk tap listens or not
 * (protocols/openai-chat/chat-frames.ts with core/pipeline/chunk-holder.ts): on the recorded
 * OpenAI stream, a tap that reads every chunk's value sees each one parsed, and the frames,
 * the usage and the progress equal the untapped run's; a chunk whose text is not JSON goes
 * out as it came in both, and the tap reads it as undefined instead of failing the stream.
 */
import test from 'ava';
import { RequestContext } from '../../core/context.ts';
import { StreamProgress } from '../../lib/common/estimate.ts';
import { type Chunk, createHooks } from '../../core/hooks.ts';
import { chatFrames } from '../../protocols/openai-chat/chat-frames.ts';
import { createLogger } from '../../server/log.ts';
import { fixture } from '../helpers/upstream.ts';

/** The recorded stream's data fields, as the common-format provider hands them on (raw text). */
const ITEMS = fixture('openai/vercel-ai/openai-text.sse')
  .split('\n')
  .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
  .map((l) => l.slice('data: '.length));

async function run(items: string[], tap?: (c: Chunk) => void) {
  const hooks = createHooks();
  if (tap) hooks.onChunk.tap('probe', (_rc, c) => tap(c));
  const rc = new RequestContext(
    'id',
    { route: 'chat', format: 'openai-chat', operation: 'generate', model: 'm', stream: true },
    undefined,
    { model: 'm' },
    '{}',
    'm',
    0,
    createLogger('silent'),
  );
  rc.provider = 'up';
  const progress = new StreamProgress();
  const frames: string[] = [];
  const g = chatFrames(
    hooks,
    rc,
    (async function* () {
      yield* items;
    })(),
    true,
    progress,
  );
  for (;;) {
    const n = await g.next();
    if (n.value !== undefined) frames.push(n.value);
    if (n.done) break;
  }
  return { frames, usage: rc.usage, bytes: progress.bytes };
}

test('a tap that reads every value changes nothing in the stream and sees every chunk parsed', async (t) => {
  t.true(ITEMS.length > 5);
  const plain = await run(ITEMS);
  const seen: unknown[] = [];
  const tapped = await run(ITEMS, (c) => seen.push(c.value));
  t.deepEqual(tapped, plain);
  t.is(seen.length, ITEMS.length);
  t.deepEqual(
    seen,
    ITEMS.map((i) => JSON.parse(i)),
  );
  t.truthy(plain.usage);
});

test('a chunk that is not JSON goes out as it came, tapped or not; the tap reads it as undefined', async (t) => {
  const items = [ITEMS[0]!, '{"id":', ...ITEMS.slice(1)];
  const plain = await run(items);
  const data: Array<[string | undefined, unknown]> = [];
  const tapped = await run(items, (c) => data.push([c.data, c.value]));
  t.deepEqual(tapped, plain);
  t.true(plain.frames.includes('data: {"id":\n\n'));
  t.deepEqual(data[1], ['{"id":', undefined]);
});
