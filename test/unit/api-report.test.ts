/**
 * The committed API report (docs/api-report.md) is the SDK as the code exports it: any name
 * added, dropped, moved between entries or changed in its declaration shows up as a diff of
 * that file. The report's parser is held to the modules themselves: the values it reads for
 * each entry are the ones the entry exports at run time. No entry reaches the host (server/).
 */
import { readFileSync } from 'node:fs';
import test from 'ava';
import { countsOf, readApi, REPORT_PATH, renderReport } from '../helpers/api-report.ts';

const api = readApi();

/** The lines only one side has, `-` committed and `+` generated, in order: enough to see what moved. */
function lineDiff(committed: string, generated: string): string {
  const before = committed.split('\n');
  const after = generated.split('\n');
  const had = new Set(before);
  const has = new Set(after);
  return [...before.filter((l) => !has.has(l)).map((l) => `- ${l}`), ...after.filter((l) => !had.has(l)).map((l) => `+ ${l}`)].join('\n');
}

test('docs/api-report.md is the report of the code', (t) => {
  const committed = readFileSync(REPORT_PATH, 'utf8');
  const generated = renderReport(api);
  t.true(
    committed === generated,
    `docs/api-report.md differs from the code; run \`npm run api-report\` and review the diff:\n${lineDiff(committed, generated)}`,
  );
});

test('the values the report reads for each entry are the ones it exports at run time', async (t) => {
  t.true(api.length >= 7, api.map((e) => e.spec).join(', '));
  for (const entry of api) {
    const runtime = Object.keys(await import(entry.spec)).sort();
    const parsed = entry.names
      .filter((n) => n.kind === 'value')
      .map((n) => n.name)
      .sort();
    t.deepEqual(parsed, runtime, entry.spec);
  }
});

test('the entries are gw/plugin, gw/plugin/format, gw/plugin/store and the protocol kits, and none reaches the host', (t) => {
  const specs = api.map((e) => e.spec);
  for (const spec of ['gw/plugin', 'gw/plugin/format', 'gw/plugin/store', 'gw/plugin/openai-chat', 'gw/plugin/gemini']) t.true(specs.includes(spec), spec);
  for (const entry of api)
    t.deepEqual(
      entry.reached.filter((f) => f.startsWith('server/')),
      [],
      entry.spec,
    );
});

test('wire types are counted apart: the common format in gw/plugin, each kit its types.ts', (t) => {
  const plugin = api.find((e) => e.spec === 'gw/plugin')!;
  const wire = plugin.names.filter((n) => n.wire).map((n) => n.name);
  t.true(wire.includes('ChatCompletionChunk') && wire.includes('Usage'), wire.join(', '));
  t.false(plugin.names.find((n) => n.name === 'RequestContext')!.wire);
  const gemini = api.find((e) => e.spec === 'gw/plugin/gemini')!;
  t.true(gemini.names.find((n) => n.name === 'GenerateContentResponse')!.wire);
  t.is(countsOf(gemini).wire, gemini.names.filter((n) => n.file === 'protocols/gemini/types.ts' && n.kind === 'type').length);
});

/** Issue 39's size of the door: public names across every entry, wire types not counted. */
const TARGET = 150;

/**
 * Each entry's ceiling, wire types not counted: an entry that grows past it fails until this
 * table changes with it, so growth is a reviewed decision, not a side effect.
 */
const CEILINGS: Readonly<Record<string, number>> = {
  // issue 41: GUARDRAILS and GuardrailOutcome (the fact the request log and traces read), EventStep (onStream), keyFormats (the secrets check)
  'gw/plugin': 79,
  'gw/plugin/format': 27,
  'gw/plugin/store': 9,
  'gw/plugin/cassette': 11,
  'gw/plugin/anthropic-messages': 2,
  'gw/plugin/gemini': 3,
  'gw/plugin/openai-chat': 3,
  'gw/plugin/openai-responses': 6,
};

const withoutWire = (entry: (typeof api)[number]): number => countsOf(entry).values + countsOf(entry).types;

test('no entry grows past its ceiling, and every entry has one', (t) => {
  for (const entry of api) {
    const ceiling = CEILINGS[entry.spec];
    t.not(ceiling, undefined, `${entry.spec} has no ceiling in test/unit/api-report.test.ts`);
    t.true(withoutWire(entry) <= ceiling!, `${entry.spec}: ${withoutWire(entry)} names without wire types, ceiling ${ceiling}`);
  }
});

test(`the door holds at most ${TARGET} public names without wire types`, (t) => {
  const sizes = api.map((entry) => `${entry.spec} ${withoutWire(entry)}`).join(', ');
  const total = api.reduce((sum, entry) => sum + withoutWire(entry), 0);
  t.true(total <= TARGET, `${total} names without wire types (${sizes})`);
});
