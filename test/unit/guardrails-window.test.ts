/**
 * The guardrails stream window over each protocol's recorded streams (test/fixtures), with
 * the real detectors: a secret split at every offset across two events, and across five, is
 * masked whole or cuts the stream before its first character; a tool call's arguments are
 * held until the call is complete and masked as JSON; an email split across events is masked;
 * clean recorded streams pass through byte for byte, and prose leaves at once.
 */
import test from 'ava';
import { type Check, compileChecks } from '../../plugins/extensions/guardrails/checks.ts';
import { guardrailsSchema } from '../../plugins/extensions/guardrails/config.ts';
import { Window } from '../../plugins/extensions/guardrails/window.ts';
import { contentCases, type ProtocolId } from '../helpers/content-fixtures.ts';
import { SECRETS } from '../helpers/guardrails-secrets.ts';
import { argumentsOf, run, runTimed, streamWithArguments, streamWithText, TestChunk, textOf, withoutText } from '../helpers/guardrails-streams.ts';

const PROTOCOLS: ProtocolId[] = ['openai-chat', 'anthropic-messages', 'openai-responses', 'gemini'];
const PREFIX = 'Here is what you asked for: ';
const SUFFIX = ' and keep it safe.';

function checks(action: 'block' | 'mask', extra: Record<string, unknown> = {}): Check[] {
  return compileChecks(guardrailsSchema.parse({ checks: { secrets: { type: 'secrets', action }, ...extra } }));
}
const MASK = checks('mask');
const BLOCK = checks('block');

/** Cut points splitting `secret` (placed after PREFIX) into `parts` pieces: every offset for two, a seeded sample plus runs of neighbours for five. */
function splits(length: number, parts: 2 | 5): number[][] {
  const out: number[][] = [];
  if (parts === 2) {
    for (let k = 1; k < length; k++) out.push([k]);
    return out;
  }
  for (let k = 1; k + 3 < length; k++) out.push([k, k + 1, k + 2, k + 3]);
  let seed = 41;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed;
  };
  for (let i = 0; i < 60; i++) {
    const cuts = new Set<number>();
    while (cuts.size < 4) cuts.add(1 + (next() % (length - 1)));
    out.push([...cuts].sort((a, b) => a - b));
  }
  return out;
}

function pieces(text: string, cuts: readonly number[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const cut of cuts) {
    out.push(text.slice(at, PREFIX.length + cut));
    at = PREFIX.length + cut;
  }
  out.push(text.slice(at));
  return out;
}

for (const protocol of PROTOCOLS) {
  for (const parts of [2, 5] as const) {
    test(`${protocol}: each secret split across ${parts} events at every tried offset is masked whole, the rest byte for byte`, (t) => {
      let runs = 0;
      for (const { kind, value, entity } of SECRETS) {
        const full = PREFIX + value + SUFFIX;
        const probe = value.slice(value.length >> 1, (value.length >> 1) + 8);
        // the private key is 1,700 characters: its two-event splits are sampled every 7th offset
        const cutList = splits(value.length, parts).filter((_cuts, i) => value.length < 200 || parts === 5 || i % 7 === 0);
        for (const cuts of cutList) {
          const events = streamWithText(protocol, pieces(full, cuts));
          const window = new Window<TestChunk>(MASK);
          const out = run(protocol, events, window);
          runs++;
          const where = `${kind} cut at ${cuts.join(',')}`;
          if (textOf(protocol, out) !== `${PREFIX}[SECRET:${entity}]${SUFFIX}`)
            return t.fail(`${where}: ${JSON.stringify(textOf(protocol, out).slice(0, 80))}`);
          if (out.some((data) => data.includes(probe))) return t.fail(`${where}: the secret left in an event`);
          if (out.length !== events.length) return t.fail(`${where}: ${events.length} events in, ${out.length} out`);
          for (let i = 0; i < out.length; i++)
            if (withoutText(protocol, out[i]!) !== withoutText(protocol, JSON.stringify(events[i])))
              return t.fail(`${where}: event ${i} changed beyond its text`);
          t.is(window.cut, undefined);
          const masked = window.outcomes.find((o) => o.entity === entity);
          if (masked?.count !== 1 || masked.action !== 'mask') return t.fail(`${where}: outcomes ${JSON.stringify(window.outcomes)}`);
        }
      }
      t.log(`${runs} streams`);
      t.pass();
    });

    test(`${protocol}: a block cuts a secret split across ${parts} events before its first character`, (t) => {
      for (const { kind, value, entity } of SECRETS) {
        const full = PREFIX + value + SUFFIX;
        const cutList = splits(value.length, parts).filter((_cuts, i) => value.length < 200 || i % 13 === 0);
        for (const cuts of cutList) {
          const window = new Window<TestChunk>(BLOCK);
          const out = run(protocol, streamWithText(protocol, pieces(full, cuts)), window);
          const where = `${kind} cut at ${cuts.join(',')}`;
          if (textOf(protocol, out) !== PREFIX) return t.fail(`${where}: sent ${JSON.stringify(textOf(protocol, out).slice(0, 60))}`);
          if (window.cut?.entity !== entity || window.cut.check !== 'secrets') return t.fail(`${where}: cut ${JSON.stringify(window.cut)}`);
        }
      }
      t.pass();
    });
  }
}

for (const protocol of ['openai-chat', 'anthropic-messages', 'openai-responses'] as const) {
  test(`${protocol}: a tool call's arguments are held until the call is complete, then masked as JSON; a block sends none of them`, (t) => {
    const { value } = SECRETS[2]!;
    const args = JSON.stringify({ path: '.env', content: `GITHUB_TOKEN=${value}\nDEBUG=1` });
    const cuts = [3, 17, 30, 41, 52, args.length - 2];
    const argPieces: string[] = [];
    let at = 0;
    for (const cut of cuts) {
      argPieces.push(args.slice(at, cut));
      at = cut;
    }
    argPieces.push(args.slice(at));
    const events = streamWithArguments(protocol, argPieces);
    const window = new Window<TestChunk>(MASK);
    const out = runTimed(protocol, events, window);
    const lastPiece = events.findIndex((e) => JSON.stringify(e).includes(JSON.stringify(argPieces.at(-1)!).slice(1, -1))) + 1;
    const firstArgs = out.find((left) => argumentsOf(protocol, [left.data]) !== '');
    t.truthy(firstArgs);
    t.true(firstArgs!.after >= lastPiece, `arguments left after push ${firstArgs!.after}, the call completed at push ${lastPiece}`);
    t.deepEqual(
      JSON.parse(
        argumentsOf(
          protocol,
          out.map((left) => left.data),
        ),
      ),
      { path: '.env', content: 'GITHUB_TOKEN=[SECRET:github-token]\nDEBUG=1' },
    );
    t.false(
      out.some((left) => left.data.includes(value.slice(4, 16))),
      'the repeated arguments are masked too',
    );

    const blocking = new Window<TestChunk>(BLOCK);
    const cut = run(protocol, events, blocking);
    t.is(argumentsOf(protocol, cut), '');
    t.deepEqual(blocking.cut, { check: 'secrets', entity: 'github-token' });
  });
}

test('gemini: a function call the event carries whole is masked in that event', (t) => {
  const { value } = SECRETS[0]!;
  const event = {
    candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'set_env_v2', args: { line: `AWS_ACCESS_KEY_ID=${value}` } } }] }, index: 0 }],
    modelVersion: 'gemini-2.5-flash',
  };
  const window = new Window<TestChunk>(MASK);
  const out = run('gemini', [event], window);
  t.deepEqual(JSON.parse(out[0]!), {
    candidates: [
      { content: { role: 'model', parts: [{ functionCall: { name: 'set_env_v2', args: { line: 'AWS_ACCESS_KEY_ID=[SECRET:aws-access-key]' } } }] }, index: 0 },
    ],
    modelVersion: 'gemini-2.5-flash',
  });
});

test('an email split across events by a pii check is masked whole; prose around it leaves as it comes', (t) => {
  const pii = checks('mask', { pii: { type: 'pii', action: 'mask', entities: ['email', 'credit_card'] } });
  const text = 'Contact jane.doe@example.com today, or pay with 4111 1111 1111 1111 now.';
  for (let k = 9; k < 40; k++) {
    const out = run('openai-chat', streamWithText('openai-chat', [text.slice(0, k), text.slice(k, k + 5), text.slice(k + 5)]), new Window(pii));
    t.is(textOf('openai-chat', out), 'Contact [EMAIL] today, or pay with [CREDIT_CARD] now.', `cut at ${k}`);
  }
});

test('prose leaves at once: each event but the one holding the last unfinished word', (t) => {
  const words = 'The quick brown fox jumps over the lazy dog while the model streams its answer. '.split(/(?<= )/);
  const events = streamWithText('openai-chat', words);
  const out = runTimed(
    'openai-chat',
    events,
    new Window<TestChunk>(checks('mask', { pii: { type: 'pii', action: 'mask', entities: ['email', 'phone', 'credit_card', 'iban', 'ip', 'us_ssn'] } })),
  );
  const first = events.findIndex((e) => textOf('openai-chat', [JSON.stringify(e)]) !== '');
  const firstText = out.find((left) => textOf('openai-chat', [left.data]) !== '');
  t.true(firstText!.after <= first + 2, `the first word left after push ${firstText!.after} (it was pushed as ${first + 1})`);
});

test('every recorded stream passes through a mask window byte for byte, and no event is lost or reordered', (t) => {
  const all = checks('mask', { pii: { type: 'pii', action: 'mask', entities: ['email', 'phone', 'credit_card', 'iban', 'ip', 'us_ssn'] } });
  let streams = 0;
  for (const c of contentCases().cases) {
    if (c.kind !== 'stream') continue;
    streams++;
    const window = new Window<TestChunk>(all);
    const out: string[] = [];
    for (const e of c.events) for (const chunk of window.push(new TestChunk(c.protocol, JSON.parse(e.data)))) out.push(chunk.data());
    for (const chunk of window.end()) out.push(chunk.data());
    t.deepEqual(
      out,
      c.events.map((e) => JSON.stringify(JSON.parse(e.data))),
      c.name,
    );
    t.deepEqual(window.outcomes, [], c.name);
  }
  t.true(streams >= 30);
});
