/**
 * Every TOML example of README.md and docs/ is a config gw accepts (issue 24): loaded by
 * the real config loader, each provider built by its kind, each extension and format
 * section checked by its plugin's schema (test/helpers/docs-toml.ts). Blocks marked
 * `<!-- not-validated: … -->` are listed here by file, so a new one is a decision, not a
 * way around the check.
 */
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';
import { checkExample, type TomlExample, tomlExamples } from '../helpers/docs-toml.ts';

const ROOT = new URL('../../', import.meta.url);

/** The Markdown files whose examples are checked: README.md and every .md under docs/. */
function docFiles(): string[] {
  const docs = readdirSync(new URL('docs/', ROOT), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs.sort()];
}

/** The blocks marked not to be loaded, and why (the reason in the marker). */
const MARKED: Record<string, RegExp> = {
  'README.md': /Codex CLI's own config file/,
  'docs/design.md': /the contract's example as written/,
  'docs/mcp.md': /Codex CLI's own config file/,
};

function collect(): { examples: TomlExample[]; problems: string[] } {
  const examples: TomlExample[] = [];
  const problems: string[] = [];
  for (const file of docFiles()) {
    const found = tomlExamples(file, readFileSync(new URL(file, ROOT), 'utf8'));
    examples.push(...found.examples);
    problems.push(...found.problems);
  }
  return { examples, problems };
}

test('every TOML example in README.md and docs/ is a config gw accepts', async (t) => {
  const { examples, problems } = collect();
  const checked = examples.filter((e) => e.skipped === undefined);
  for (const ex of checked) problems.push(...(await checkExample(ex)));
  t.deepEqual(problems, []);
  // the pages that document config sections show them: none found there means the examples stopped being found
  for (const file of ['README.md', 'docs/configuration.md', 'docs/extensions.md', 'docs/formats-and-agents.md', 'docs/operations.md'])
    t.true(
      checked.some((e) => e.where.startsWith(`${file}:`)),
      `no TOML example found in ${file}`,
    );
  t.log(`${checked.length} TOML examples loaded, ${examples.length - checked.length} marked not-validated`);
});

test('the blocks marked not-validated are the known ones, one per file, each with its reason', (t) => {
  const skipped = collect().examples.filter((e) => e.skipped !== undefined);
  t.deepEqual(skipped.map((e) => e.where.split(':')[0]).sort(), Object.keys(MARKED).sort());
  for (const e of skipped) t.regex(e.skipped!, MARKED[e.where.split(':')[0]!]!, e.where);
});

const PLANTED = `# Planted

\`\`\`toml
[extensions.cache]
ttl_seconds = 60
\`\`\`

\`\`\`toml
listen = "localhost"
\`\`\`

\`\`\`toml
[extensions.rate_limit]
tokens_per_minute = 1000
\`\`\`

\`\`\`toml
[providers.openai]
api_key = "\${OPENAI_API_KEY}"
models = ["gpt-4o"]
timeout_seconds = "slow"
\`\`\`

\`\`\`toml
[providers.nowhere]
api_key = "x"
\`\`\`

\`\`\`toml
[extensions.no_such_extension]
\`\`\`

\`\`\`toml
[responses]
ttl_days = -1
\`\`\`

\`\`\`toml
[keys.default]
key = "sk-…"
\`\`\`

\`\`\`toml
[aliases
\`\`\`

<!-- not-validated: planted, deliberately invalid -->
\`\`\`toml
listen = 8080
\`\`\`

\`\`\`
[extensions.cache]
ttl_seconds = 60
\`\`\`

<!-- not-validated: a marker on a shell block -->
\`\`\`sh
npm start
\`\`\`
`;

test('a planted broken example fails, naming the file, the line and the key at fault', async (t) => {
  const { examples, problems } = tomlExamples('planted.md', PLANTED);
  t.deepEqual(problems, [
    'planted.md:52: an untagged block that reads as TOML: tag it ```toml so it is checked',
    "planted.md:58: a not-validated marker before a block tagged 'sh', not toml",
  ]);
  t.deepEqual(
    examples.filter((e) => e.skipped !== undefined).map((e) => [e.where, e.skipped]),
    [['planted.md:48', 'planted, deliberately invalid']],
  );
  const found: string[][] = [];
  for (const ex of examples.filter((e) => e.skipped === undefined)) found.push(await checkExample(ex));
  t.deepEqual(found[0], [], 'the good example passes');
  const expected: Array<[string, RegExp]> = [
    ['planted.md:8', /^planted\.md:8: listen: expected "<host>:<port>"/],
    ['planted.md:12', /^planted\.md:12: extensions\.rate_limit\.requests_per_minute: /],
    ['planted.md:17', /^planted\.md:17: providers\.openai\.timeout_seconds: /],
    [
      'planted.md:24',
      /^planted\.md:24: providers\.nowhere: no built-in provider kind 'nowhere' and the npm package gw-plugin-nowhere is not installed; give base_url/,
    ],
    ['planted.md:29', /^planted\.md:29: extensions\.no_such_extension: no built-in extension/],
    ['planted.md:33', /^planted\.md:33: responses\.ttl_days: /],
    ['planted.md:38', /^planted\.md:38: keys\.default\.key: expected a key of at least 16 characters/],
    ['planted.md:43', /^planted\.md:43: TOML syntax error/],
  ];
  t.is(found.length, 1 + expected.length);
  for (const [i, [where, re]] of expected.entries()) {
    t.is(found[i + 1]!.length, 1, `${where}: ${found[i + 1]!.join(' | ')}`);
    t.regex(found[i + 1]![0] ?? '', re, where);
  }
});
