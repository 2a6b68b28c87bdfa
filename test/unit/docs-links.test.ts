/**
 * The links between README.md and the pages of docs/ lead somewhere: every relative link
 * names a file of the repository and, when it has a `#fragment`, a heading of that file
 * (GitHub's anchor for it). Links to other sites are not followed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside code blocks); a repeated heading gets `-1`, `-2`… as on GitHub. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const h = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!h) continue;
    const base = anchorOf(h[1]!.trim());
    const n = seen.get(base);
    seen.set(base, (n ?? -1) + 1);
    if (n !== undefined) seen.set(`${base}-${n + 1}`, 0);
  }
  return new Set(seen.keys());
}

/** Every Markdown link of a text outside code blocks and inline code. */
function links(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    for (const [, target] of line.replace(/`[^`]*`/g, '').matchAll(LINK)) out.push(target!);
  }
  return out;
}

test('every relative link of README.md and docs/ names a file and a heading that exist', (t) => {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const target of links(readFileSync(join(ROOT, file), 'utf8'))) {
      if (/^[a-z]+:/i.test(target)) continue;
      checked++;
      const [path, fragment] = target.split('#') as [string, string | undefined];
      const dest = path === '' ? file : normalize(join(dirname(file), path));
      if (!existsSync(join(ROOT, dest))) broken.push(`${file}: ${target}: no file ${dest}`);
      else if (fragment !== undefined && dest.endsWith('.md') && !anchors(readFileSync(join(ROOT, dest), 'utf8')).has(fragment))
        broken.push(`${file}: ${target}: no heading #${fragment} in ${dest}`);
    }
  }
  t.deepEqual(broken, []);
  t.true(checked > 30, `only ${checked} relative links found`);
});

test("anchors are GitHub's", (t) => {
  t.is(anchorOf('Worker processes: `gw serve --workers N`'), 'worker-processes-gw-serve---workers-n');
  t.is(anchorOf('Installing: Node.js 24'), 'installing-nodejs-24');
  t.is(anchorOf('Aliases, routing, retries, fallbacks'), 'aliases-routing-retries-fallbacks');
  t.is(anchorOf('The request context (`rc`)'), 'the-request-context-rc');
});
