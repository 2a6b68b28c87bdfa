/**
 * A mask reaches text and nothing else (issue 41's masks that turned `gpt-5.4-nano` into
 * `[GERMAN_KFZ_REDACTED].4-nano`): every `texts()` part of a request, an answer and a stream
 * event is set to a marker of its own, for every recorded fixture and for generated bodies
 * of each protocol (fast-check, seeded, a fixed number of runs). The result parses, a request
 * still validates against its protocol's schema, and it equals the original but for those
 * strings: each marker is found exactly once, a tool call's JSON-text arguments differ only
 * in their string values, and no model, id, name, type, role, URL or media data changed.
 * Then the write rule: a read-only view refuses `set`, an edit marks the view edited, JSON-
 * text arguments are written back by `commit()`.
 */
import test from 'ava';
import fc from 'fast-check';
import type { z } from 'zod';
import { Edits } from '../../lib/content/parts.ts';
import type { TextPart, ToolArgumentsDelta } from '../../lib/content/types.ts';
import { answerContent, type ContentReader, eventContent, requestContent } from '../../lib/content/view.ts';
import { messagesRequestSchema } from '../../protocols/anthropic-messages/schema.ts';
import { generateContentRequestSchema } from '../../protocols/gemini/schemas.ts';
import { chatRequestSchema } from '../../protocols/openai-chat/schema.ts';
import { responsesRequestSchema } from '../../protocols/openai-responses/schema.ts';
import { BODIES, LABELS } from '../helpers/content-bodies.ts';
import { contentCases, type ProtocolId, READERS } from '../helpers/content-fixtures.ts';

const SEED = 4141;
const RUNS = 150;

const SCHEMAS: Readonly<Record<ProtocolId, z.ZodType>> = {
  'openai-chat': chatRequestSchema,
  'anthropic-messages': messagesRequestSchema,
  'openai-responses': responsesRequestSchema,
  gemini: generateContentRequestSchema,
};

type Kind = 'request' | 'answer' | 'event';
type Obj = Record<string, unknown>;

/** A marker no generated or recorded string holds (private-use characters). */
const marker = (i: number) => `\uE000${i}\uE001`;
const MARKER = /^\uE000(\d+)\uE001$/;

/** Keys whose string is never text, outside a tool's own data (arguments, a structured result). */
const NEVER_TEXT = new Set([
  'id',
  'model',
  'name',
  'type',
  'role',
  'call_id',
  'tool_call_id',
  'tool_use_id',
  'url',
  'image_url',
  'fileUri',
  'mimeType',
  'media_type',
  'signature',
  'thoughtSignature',
  'encrypted_content',
  'responseId',
  'modelVersion',
  'finish_reason',
  'stop_reason',
  'finishReason',
  'status',
  'object',
  'item_id',
  'jsonPath',
  'filename',
  'file_data',
  'data',
]);
const CALL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

/** `parts` set to markers (a fresh view each time: parts point into `body`), then committed. */
function mask(reader: ContentReader, kind: Kind, body: Obj): number {
  const at = new Edits(true);
  const parts: ReadonlyArray<TextPart | ToolArgumentsDelta> =
    kind === 'request'
      ? requestContent(reader, body, at).texts()
      : kind === 'answer'
        ? answerContent(reader, body, at).texts()
        : eventContent(reader, body, at).texts();
  for (let i = 0; i < parts.length; i++) parts[i]!.set(marker(i));
  at.commit();
  return parts.length;
}

/**
 * Where `masked` differs from `original` other than by markers in text: a list of problems
 * (empty when the mask touched text alone), and the markers found.
 */
function differences(original: unknown, masked: unknown): { problems: string[]; found: number[] } {
  const problems: string[] = [];
  const found: number[] = [];
  const walk = (a: unknown, b: unknown, path: string, key: string, holder: Obj | undefined, data: boolean): void => {
    if (typeof a === 'string' && typeof b === 'string') {
      if (a === b) return;
      const hit = MARKER.exec(b);
      if (hit) {
        found.push(Number(hit[1]));
        if (!data && NEVER_TEXT.has(key) && !(key === 'data' && holder?.type === 'text')) problems.push(`${path}: ${key} was masked`);
        return;
      }
      // JSON-text arguments, written back: the same JSON but for its string values
      const parsed = parseJson(a, b);
      if (parsed) walk(parsed[0], parsed[1], `${path}(json)`, '', undefined, true);
      else problems.push(`${path}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`);
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) problems.push(`${path}: ${a.length} items became ${b.length}`);
      else for (let i = 0; i < a.length; i++) walk(a[i], b[i], `${path}[${i}]`, key, holder, data);
      return;
    }
    if (isObj(a) && isObj(b)) {
      const keys = Object.keys(a);
      if (keys.join() !== Object.keys(b).join()) problems.push(`${path}: keys ${keys} became ${Object.keys(b)}`);
      for (const k of keys) {
        const inData =
          data ||
          (k === 'input' && CALL_BLOCKS.has(a.type as string)) ||
          (k === 'args' && key === 'functionCall') ||
          (k === 'response' && key === 'functionResponse');
        walk(a[k], b[k], `${path}.${k}`, k, a, inData);
      }
      return;
    }
    if (!Object.is(a, b) && !(typeof a === 'number' && a === b)) problems.push(`${path}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`);
  };
  walk(original, masked, '$', '', undefined, false);
  return { problems, found };
}

function parseJson(a: string, b: string): [unknown, unknown] | undefined {
  try {
    return [JSON.parse(a), JSON.parse(b)];
  } catch {
    return undefined;
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Masks a copy of `body` and checks it; returns the problems (none when the mask is right). */
function maskedProblems(protocol: ProtocolId, kind: Kind, body: Obj): string[] {
  const copy = structuredClone(body);
  const count = mask(READERS[protocol], kind, copy);
  const wire = JSON.parse(JSON.stringify(copy)) as Obj;
  const { problems, found } = differences(body, wire);
  const expected = Array.from({ length: count }, (_, i) => i);
  if (found.sort((x, y) => x - y).join() !== expected.join()) problems.push(`markers found ${found.join()} of ${count}: each part must be its own field`);
  if (kind === 'request' && SCHEMAS[protocol].safeParse(body).success && !SCHEMAS[protocol].safeParse(wire).success)
    problems.push('the masked request fails its schema');
  return problems;
}

const { cases } = contentCases();

for (const c of cases) {
  test(`${c.name} (${c.protocol} ${c.kind}): every text masked, nothing else`, (t) => {
    const bodies = c.kind === 'stream' ? c.events.map((e) => e.value) : [c.body];
    const kind: Kind = c.kind === 'stream' ? 'event' : c.kind;
    if (kind === 'request') t.true(SCHEMAS[c.protocol].safeParse(bodies[0]).success, 'the fixture validates before masking');
    for (const body of bodies) t.deepEqual(maskedProblems(c.protocol, kind, body), []);
  });
}

for (const protocol of Object.keys(READERS) as ProtocolId[]) {
  for (const kind of ['request', 'answer', 'event'] as const) {
    test(`generated ${protocol} ${kind}s: every text masked, nothing else`, (t) => {
      let parts = 0;
      fc.assert(
        fc.property(BODIES[protocol][kind], (body) => {
          if (kind === 'request') t.true(SCHEMAS[protocol].safeParse(body).success, 'generated requests are valid');
          const problems = maskedProblems(protocol, kind, body);
          if (problems.length > 0) throw new Error(problems.join('\n'));
          parts += mask(READERS[protocol], kind, structuredClone(body));
        }),
        { seed: SEED, numRuns: RUNS },
      );
      t.true(parts >= RUNS / 2, `${parts} parts masked over ${RUNS} bodies`);
    });
  }
}

test('labels survive a mask of everything: model names, ids and tool names with digits and dashes', (t) => {
  const body = {
    model: 'gpt-5.4-nano',
    messages: [
      { role: 'user', content: 'call get_weather-2 with gpt-5.4-nano' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_-7807249954186984837', type: 'function', function: { name: 'get_weather-2', arguments: '{"model":"claude-sonnet-4-5-20250929"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_-7807249954186984837', content: 'gpt-5.4-nano' },
    ],
  };
  const copy = structuredClone(body);
  t.is(mask(READERS['openai-chat'], 'request', copy), 3);
  t.is(copy.model, 'gpt-5.4-nano');
  t.like(copy.messages[1]!.tool_calls![0], {
    id: 'call_-7807249954186984837',
    function: { name: 'get_weather-2', arguments: JSON.stringify({ model: marker(1) }) },
  });
  t.is(copy.messages[2]!.tool_call_id, 'call_-7807249954186984837');
  for (const label of LABELS.slice(0, 2))
    t.false(
      JSON.stringify(copy)
        .replace(/"model":"gpt-5\.4-nano"/, '')
        .includes(label),
    );
});

test('a read-only view refuses set and leaves the body alone; a writable one marks itself edited', (t) => {
  const body = { model: 'm', messages: [{ role: 'user', content: 'secret' }] };
  const closed = new Edits(false);
  const [part] = requestContent(READERS['openai-chat'], body, closed).texts();
  t.throws(() => part!.set('x'), { message: /read-only here: edits are honoured in onRequest/ });
  t.is(body.messages[0]!.content, 'secret');
  t.false(closed.commit());

  const open = new Edits(true);
  const [writable] = requestContent(READERS['openai-chat'], body, open).texts();
  t.false(open.edited);
  t.throws(() => writable!.set(42 as unknown as string), { instanceOf: TypeError });
  writable!.set('[SECRET]');
  t.is(body.messages[0]!.content, '[SECRET]');
  t.is(writable!.text, '[SECRET]');
  t.true(open.edited);
  t.true(open.commit());
  open.writable = false;
  t.throws(() => writable!.set('again'));
});

test('JSON-text arguments: edited strings are written back once, by commit() or by reading arguments', (t) => {
  const fn = { name: 'f', arguments: '{"a":"x","b":["y",{"c":"z"}],"n":1}' };
  const body = { model: 'm', messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: fn }] }] };
  const at = new Edits(true);
  const view = requestContent(READERS['openai-chat'], body, at);
  const parts = view.texts();
  t.deepEqual(
    parts.map((p) => p.text),
    ['x', 'y', 'z'],
  );
  for (const p of parts) p.set(p.text.toUpperCase());
  t.is(fn.arguments, '{"a":"x","b":["y",{"c":"z"}],"n":1}', 'not yet written back');
  t.true(at.commit());
  t.is(fn.arguments, '{"a":"X","b":["Y",{"c":"Z"}],"n":1}');

  const at2 = new Edits(true);
  const call = requestContent(READERS['openai-chat'], body, at2).messages[0]!.parts[0]!;
  if (call.type !== 'tool_call') return t.fail();
  call.argumentTexts()[0]!.set('q');
  t.is(call.arguments, '{"a":"q","b":["Y",{"c":"Z"}],"n":1}', 'reading the arguments writes them back');

  // arguments that are not JSON are one part, written as is
  fn.arguments = '{"a": unfinished';
  const [whole] = requestContent(READERS['openai-chat'], body, new Edits(true)).texts();
  t.is(whole!.text, '{"a": unfinished');
  whole!.set('[MASKED]');
  t.is(fn.arguments, '[MASKED]');
});
