/**
 * The README's recipes as tests run them: the fenced code blocks of README.md, found by how
 * they begin, so a test runs what a reader copies and the README cannot drift from what works.
 */
import { readFileSync } from 'node:fs';

const README = new URL('../../README.md', import.meta.url);

/** The gateway address the README's recipes use; tests put their own in its place. */
export const README_ORIGIN = 'http://127.0.0.1:8080';
/** The README's stand-in for a gateway key. */
const KEY_PLACEHOLDER = '<gateway key>';

/**
 * The variables a shell block of the README exports (`export NAME=value  # comment`), its
 * address and key placeholder replaced by `baseUrl` and `apiKey`.
 */
export function readmeExports(block: string, baseUrl: string, apiKey: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, name, value] of block.matchAll(/^export (\w+)=(.*?)\s*(?:#.*)?$/gm))
    env[name!] = value!.replace(README_ORIGIN, baseUrl).replace(KEY_PLACEHOLDER, apiKey);
  return env;
}

/**
 * A fenced code block of a Markdown file: its language tag (```toml → `toml`), its lines
 * without the fences (each ending in a newline), the 1-based line of its opening fence, and
 * the last non-blank line before that fence (where a marker such as an HTML comment sits).
 */
export interface FencedBlock {
  lang: string;
  text: string;
  line: number;
  before: string;
}

const OPEN = /^```(\w*)$/;

/** Every fenced code block (``` at the start of a line) of a Markdown text, in order; an unclosed one is left out. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  let before = '';
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i]!);
    if (!open) {
      if (lines[i]!.trim() !== '') before = lines[i]!;
      continue;
    }
    const end = lines.indexOf('```', i + 1);
    if (end < 0) break;
    blocks.push({
      lang: open[1]!,
      text: lines
        .slice(i + 1, end)
        .map((l) => `${l}\n`)
        .join(''),
      line: i + 1,
      before,
    });
    before = '```';
    i = end;
  }
  return blocks;
}

/** Every fenced code block of README.md, in order. */
export function readmeBlocks(): FencedBlock[] {
  return fencedBlocks(readFileSync(README, 'utf8'));
}

/**
 * The one block whose text begins with `start` (e.g. `# ~/.codex/config.toml`).
 * @throws when no block or more than one begins so: the test would not know what it runs.
 */
export function readmeBlock(start: string): string {
  const found = readmeBlocks().filter((b) => b.text.startsWith(start));
  if (found.length !== 1) throw new Error(`README.md has ${found.length} code blocks beginning with ${JSON.stringify(start)}, expected 1`);
  return found[0]!.text;
}

/** The README section under the heading `heading` (e.g. `## Set up`): its lines up to the next heading outside a code block. */
export function readmeSection(heading: string): string {
  const lines = readFileSync(README, 'utf8').split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`README.md has no heading ${JSON.stringify(heading)}`);
  let fenced = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    if (lines[end]!.startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#{1,6} /.test(lines[end]!)) break;
  }
  return lines.slice(start + 1, end).join('\n');
}
