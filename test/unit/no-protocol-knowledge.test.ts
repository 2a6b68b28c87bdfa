/**
 * Extensions know no wire protocol (issue 39): they read a request, an answer and a stream
 * event through the content view, so a third-party format gets every extension for free. In
 * `plugins/extensions/**` no code may spell a built-in protocol's id, compare a format with
 * anything but a string literal (`chunk.format === FORMAT`; the literal itself is the first
 * rule's), switch on a format by other than string literals, or index a table by one
 * (`TABLE[rc.format]`). Comments never count (test/helpers/protocol-knowledge.ts scans the
 * code); a planted violation of each rule shows the check finds it. A `format` of something
 * else (an alerts webhook's `'slack'`) is compared with its own literals.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { protocolKnowledge } from '../helpers/protocol-knowledge.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The built-in protocols' ids: the client formats' folders. */
const IDS: ReadonlySet<string> = new Set(readdirSync(join(ROOT, 'plugins/formats'), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? [d.name] : [])));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sources(path);
    return d.name.endsWith('.ts') ? [path] : [];
  });
}

test('the built-in protocol ids are the client formats', (t) => {
  t.deepEqual([...IDS].sort(), ['anthropic-messages', 'gemini', 'openai-chat', 'openai-responses']);
});

test('no extension spells a protocol id or branches on a format', (t) => {
  const files = sources(join(ROOT, 'plugins/extensions'));
  t.true(files.length > 30, `${files.length} files`);
  const found = files.flatMap((f) => protocolKnowledge(relative(ROOT, f), readFileSync(f, 'utf8'), IDS));
  t.deepEqual(found, []);
});

test('a planted violation of each rule is found; comments, provider kinds and other properties are not', (t) => {
  const planted = `// rc.format === 'gemini' in a comment is no branch
/** switch (rc.format) neither */
const KINDS = { gemini: 'gcp.gemini', openai: 'openai' };
export function tap(rc: { format: string; route: string }, chunk: { format: string }, format: string, table: Record<string, number>, FORMAT: string) {
  if (rc.format === 'gemini') return 1;
  if ('anthropic-messages' !== chunk.format) return 2;
  if (chunk.format === FORMAT || format == rc.format) return 3;
  switch (rc.format) { case FORMAT: break; }
  const n = table[rc.format];
  const label = \`openai-chat\`;
  const webhook = { format: 'slack' };
  switch (webhook.format) { case 'slack': break; }
  return rc.route === 'chat' && KINDS.gemini && n && label && webhook.format === 'slack';
}
`;
  t.deepEqual(protocolKnowledge('planted.ts', planted, IDS), [
    "planted.ts:5: the protocol id 'gemini'",
    "planted.ts:6: the protocol id 'anthropic-messages'",
    'planted.ts:7: a comparison of a format with a name',
    'planted.ts:7: a comparison of a format with a name',
    'planted.ts:8: a switch on a format by name',
    'planted.ts:9: a lookup by format',
    "planted.ts:10: the protocol id 'openai-chat'",
  ]);
});
