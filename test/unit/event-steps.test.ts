/**
 * onStream's steps (lib/content/steps.ts, issue 41's seam): steps chain in tap order, a step
 * may hold events and release them later, an edit is written into the event and marks it for
 * encoding again, the first cut ends the chain; a held event's view is writable until it is
 * committed.
 */
import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import { type EventStep, EventSteps, HeldEvent } from '../../lib/content/steps.ts';
import { chatContent } from '../../protocols/openai-chat/content.ts';

const chunk = (text: string) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-5.4-nano',
    choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
  });

/** Holds every event until `end`, upper-casing its text. */
class HoldAll implements EventStep<HeldEvent> {
  cut: GatewayError | undefined = undefined;
  private readonly held: HeldEvent[] = [];
  push(event: HeldEvent): HeldEvent[] {
    for (const delta of event.content().deltas) delta.set(delta.text.toUpperCase());
    this.held.push(event);
    return [];
  }
  end(): HeldEvent[] {
    return this.held.splice(0);
  }
}

/** Passes events on, cutting the stream at the first one whose text includes `word`. */
class CutAt implements EventStep<HeldEvent> {
  cut: GatewayError | undefined = undefined;
  readonly seen: string[] = [];
  private readonly word: string;
  constructor(word: string) {
    this.word = word;
  }
  push(event: HeldEvent): HeldEvent[] {
    const text = event
      .content()
      .deltas.map((d) => d.text)
      .join('');
    this.seen.push(text);
    if (text.includes(this.word)) {
      this.cut = new GatewayError(400, 'cut');
      return [];
    }
    return [event];
  }
  end(): HeldEvent[] {
    return [];
  }
}

test('a held event is parsed on first read, its edits committed into its object; an unedited one keeps its text', (t) => {
  const edited = new HeldEvent(chatContent, chunk('hello'), undefined, 'tag');
  const untouched = new HeldEvent(chatContent, chunk('world'), undefined, 'tag');
  edited.content().deltas[0]!.set('[MASKED]');
  t.true(edited.commit());
  t.is(edited.data, undefined, 'its text no longer says what it holds');
  t.is((edited.value as any).choices[0].delta.content, '[MASKED]');
  t.is(edited.tag, 'tag');
  t.throws(() => edited.content().deltas[0]!.set('again'), { message: /read-only/ }, 'closed once it left');
  t.false(untouched.commit());
  t.is(untouched.data, chunk('world'));
});

test('steps chain in order: what one releases the next gets, at end too; the first cut is the chain’s', (t) => {
  const hold = new HoldAll();
  const cut = new CutAt('B');
  const steps = new EventSteps<HeldEvent>([hold, cut]);
  t.deepEqual(steps.push(new HeldEvent(chatContent, chunk('a'), undefined, undefined)), []);
  t.deepEqual(steps.push(new HeldEvent(chatContent, chunk('b'), undefined, undefined)), []);
  t.is(steps.cut, undefined);
  t.is(steps.last?.data, chunk('b'));
  // the first step releases both at the end, upper-cased; the second passes A and cuts at B
  const out = steps.end();
  t.deepEqual(
    out.map((e) => (e.value as any).choices[0].delta.content),
    ['A'],
  );
  t.deepEqual(cut.seen, ['A', 'B']);
  t.is(steps.cut?.message, 'cut');
});
