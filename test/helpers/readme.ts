/**
 * The README's recipes as tests run them: the fenced code blocks of README.md, found by how
 * they begin, so a test runs what a reader copies and the README cannot drift from what works.
 */
import { readFileSync } from 'node:fs';

const README = new URL('../../README.md', import.meta.url);

/** The gateway address the README's recipes use; tests put their own in its place. */
export const README_ORIGIN = 'http://127.0.0.1:8080';

/** A fenced code block: its language tag (```toml → `toml`) and its lines, without the fences. */
export interface ReadmeBlock {
  lang: string;
  text: string;
}

/** Every fenced code block of README.md, in order. */
export function readmeBlocks(): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  for (const m of readFileSync(README, 'utf8').matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) blocks.push({ lang: m[1]!, text: m[2]! });
  return blocks;
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
