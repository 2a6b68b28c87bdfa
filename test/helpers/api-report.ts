/**
 * The API report (docs/api-report.md), in the spirit of api-extractor: every public name of
 * gw's SDK, per entry of package.json `exports` (`./plugin`, `./plugin/format`,
 * `./plugin/store` and each kit `./plugin/<protocol>`, read from their `gw-source` files),
 * with its kind, its declaration's head and the file declaring it. A change of the door is
 * then a diff of that file, reviewed like code; test/unit/api-report.test.ts fails when the
 * committed report differs from the code.
 *
 * Read from the source text, not by loading modules: `export {…} from`, `export *`,
 * `export type *` and `export * as` are followed to the declaring file. `verbatimModuleSyntax`
 * holds, so a re-export without `type` is a value (a class counts once, as a value);
 * `export * as ns` is one value. Wire types are the type names declared in a kit's
 * `types.ts` or in lib/common/chat.ts (the common format is OpenAI chat's wire shape); a
 * protocol's wire types are counted apart from the door's size.
 *
 * `npm run api-report` writes the file.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const REPORT_PATH = join(ROOT, 'docs', 'api-report.md');

/** One public name of an entry. */
export interface ApiName {
  readonly name: string;
  readonly kind: 'value' | 'type';
  /** A type declared in a kit's types.ts or in lib/common/chat.ts. */
  readonly wire: boolean;
  /** The declaration's head: a function's signature, `class X extends Y`, `interface X`, `type X = …` (first line), `const X: T`. */
  readonly head: string;
  /** The declaring file, relative to the repository. */
  readonly file: string;
}

/** One entry of package.json `exports`. */
export interface ApiEntry {
  /** The import specifier (`gw/plugin/format`). */
  readonly spec: string;
  /** Its source file, relative to the repository. */
  readonly file: string;
  readonly names: readonly ApiName[];
  /** Every source file its exports were followed through (the entry's own included). */
  readonly reached: readonly string[];
}

interface Found {
  kind: 'value' | 'type';
  /** Absolute path of the declaring file, as far as followed. */
  file: string;
  /** The name it has in that file (a re-export may rename it). */
  local: string;
  /** `export * as ns`: how many names the namespace holds. */
  members?: number;
}

const WIRE = /(^protocols\/[^/]+\/types\.ts$)|(^lib\/common\/chat\.ts$)/;

const rel = (file: string): string => relative(ROOT, file).split(sep).join('/');

/** Source text with comments blanked (strings, template literals and line breaks kept): enough for export statements and declaration heads. */
function stripComments(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      out += src.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function resolveModule(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const path = resolve(dirname(from), spec);
  return existsSync(path) ? path : undefined;
}

/** Reads every module's exports once per report. */
class ExportReader {
  private readonly cache = new Map<string, Map<string, Found>>();
  private readonly texts = new Map<string, string>();

  text(file: string): string {
    let text = this.texts.get(file);
    if (text === undefined) this.texts.set(file, (text = stripComments(readFileSync(file, 'utf8'))));
    return text;
  }

  exportsOf(file: string): Map<string, Found> {
    const cached = this.cache.get(file);
    if (cached) return cached;
    const names = new Map<string, Found>();
    this.cache.set(file, names);
    const src = this.text(file);
    const add = (name: string, found: Found) => {
      const had = names.get(name);
      if (!had || (had.kind === 'type' && found.kind === 'value')) names.set(name, found);
    };
    for (const m of src.matchAll(/\bexport\s+(type\s+)?\{([^}]*)\}\s*(?:from\s*['"]([^'"]+)['"])?/g)) {
      const target = m[3] ? resolveModule(file, m[3]) : undefined;
      const inner = target ? this.exportsOf(target) : undefined;
      for (let spec of m[2]!.split(',')) {
        spec = spec.trim();
        if (!spec) continue;
        let type = m[1] !== undefined;
        if (spec.startsWith('type ')) {
          type = true;
          spec = spec.slice(5).trim();
        }
        const [orig, alias] = spec.split(/\s+as\s+/).map((s) => s.trim()) as [string, string | undefined];
        const from = inner?.get(orig) ?? (target ? undefined : this.imported(file, orig));
        add(alias ?? orig, { kind: type ? 'type' : 'value', file: from?.file ?? target ?? file, local: from?.local ?? orig });
      }
    }
    for (const m of src.matchAll(/\bexport\s+\*\s+as\s+(\w+)\s+from\s*['"]([^'"]+)['"]/g)) {
      const target = resolveModule(file, m[2]!)!;
      add(m[1]!, { kind: 'value', file: target, local: m[1]!, members: this.exportsOf(target).size });
    }
    for (const m of src.matchAll(/\bexport\s+(type\s+)?\*\s+from\s*['"]([^'"]+)['"]/g)) {
      const target = resolveModule(file, m[2]!)!;
      for (const [name, found] of this.exportsOf(target)) if (name !== 'default') add(name, m[1] ? { ...found, kind: 'type' } : found);
    }
    for (const m of src.matchAll(/\bexport\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|var|class|enum)\s+(\w+)/g))
      add(m[1]!, { kind: 'value', file, local: m[1]! });
    for (const m of src.matchAll(/\bexport\s+(?:declare\s+)?(?:interface|type)\s+(\w+)\b(?!\s*\*)/g))
      if (m[1] !== 'type') add(m[1]!, { kind: 'type', file, local: m[1]! });
    return names;
  }

  /** Where a name `file` imports and exports again (`import type { X } from '…'; export type { X };`) is declared, if it does. */
  private imported(file: string, name: string): Found | undefined {
    for (const m of this.text(file).matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g)) {
      for (const spec of m[1]!.split(',')) {
        const [orig, alias] = spec
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .map((x) => x.trim()) as [string, string | undefined];
        if ((alias ?? orig) !== name) continue;
        const target = resolveModule(file, m[2]!);
        return target ? this.exportsOf(target).get(orig) : undefined;
      }
    }
    return undefined;
  }

  /** The head of `name`'s declaration in `file` (see ApiName.head). */
  head(found: Found): string {
    if (found.members !== undefined) return `namespace ${found.local} (${found.members} members)`;
    const src = this.text(found.file);
    const name = found.local.replace(/\$/g, '\\$');
    // a class exported with `export type` is a type here: any declaration kind
    const kinds = '(?:async\\s+)?(?:abstract\\s+)?(?:function\\*?|const|let|var|class|enum|interface|type)';
    // the exported declaration first: a local of the same name may come before it
    const declaration = (exported: string) => new RegExp(`(?:^|\\n)[ \\t]*${exported}(?:declare\\s+)?(${kinds})\\s+${name}\\b`).exec(src);
    const at = declaration('export\\s+') ?? declaration('');
    if (!at) return '';
    const start = at.index + at[0].length - at[0].trimStart().length;
    const keyword = at[1]!;
    const rest = src.slice(start);
    if (/^(?:export\s+)?type\b/.test(rest) && keyword === 'type') return oneLine(firstLine(rest));
    if (/const|let|var/.test(keyword)) return oneLine(constHead(rest));
    return oneLine(headUntilBody(rest));
  }
}

function firstLine(text: string): string {
  const line = text.slice(0, text.indexOf('\n') < 0 ? text.length : text.indexOf('\n')).trimEnd();
  return line.endsWith(';') ? line.slice(0, -1) : `${line} …`;
}

/** `const X: T` when annotated, else `const X = <the initializer's first line>`. */
function constHead(text: string): string {
  const annotated = /^(?:export\s+)?(?:const|let|var)\s+\w+\s*:/.exec(text);
  if (!annotated) return firstLine(text);
  return text
    .slice(
      0,
      scan(text, annotated[0].length, (token) => token === '=' || token === ';'),
    )
    .trimEnd();
}

/** A function's, class's or interface's text up to its body's `{` (or an overload's `;`). */
function headUntilBody(text: string): string {
  // a `{` after these opens an object type, not the body
  const typeStart = new Set([':', '|', '&', '=>', ',', '(', '<', '[', '=', '?', 'extends', 'keyof', 'typeof', 'readonly']);
  let previous = '';
  return text
    .slice(
      0,
      scan(
        text,
        0,
        (token) => (token === '{' && !typeStart.has(previous)) || token === ';',
        (token) => (previous = token),
      ),
    )
    .trimEnd();
}

/**
 * The index of the first token at bracket depth 0 from `from` for which `stop` answers true
 * (the text's length when none does); `seen` is told every token at depth 0 before it.
 */
function scan(text: string, from: number, stop: (token: string) => boolean, seen?: (token: string) => void): number {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    let token: string;
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      token = text.slice(i, j + 1);
    } else if (/[\w$]/.test(c)) token = /^[\w$]+/.exec(text.slice(i, i + 200))![0];
    else if (text.startsWith('=>', i)) token = '=>';
    else if (text.startsWith('...', i)) token = '...';
    else token = c;
    if (depth === 0 && stop(token)) return i;
    if ('([{<'.includes(token)) depth++;
    else if (')]}>'.includes(token)) depth = Math.max(0, depth - 1);
    else if (depth === 0) seen?.(token);
    if (depth === 0 && ')]}>'.includes(token)) seen?.(token);
    i += token.length;
  }
  return text.length;
}

const oneLine = (text: string): string =>
  text
    .replace(/\s+/g, ' ')
    .replace(/\( /g, '(')
    .replace(/,? \)/g, ')')
    .replace(/; \}/g, ' }')
    .replace(/^export /, '')
    .replace(/^declare /, '');

/** The entries of package.json `exports` (a `*` pattern: one entry per folder that has its file). */
export function apiEntries(): Array<{ spec: string; file: string }> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
  const entries: Array<{ spec: string; file: string }> = [];
  for (const [key, target] of Object.entries(pkg.exports)) {
    const source = typeof target === 'object' ? target['gw-source'] : undefined;
    if (!source || !key.startsWith('./plugin')) continue;
    if (!source.includes('*')) {
      entries.push({ spec: `gw/${key.slice(2)}`, file: join(ROOT, source) });
      continue;
    }
    const [before, after] = source.split('*') as [string, string];
    const dir = join(ROOT, before);
    for (const folder of readdirSync(dir).sort()) {
      const file = join(dir, folder, after);
      if (statSync(join(dir, folder)).isDirectory() && existsSync(file)) entries.push({ spec: `gw/${key.slice(2).replace('*', folder)}`, file });
    }
  }
  return entries;
}

const byName = (a: { name: string }, b: { name: string }): number => {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
};

/** Every entry with its public names, sorted. */
export function readApi(): ApiEntry[] {
  const reader = new ExportReader();
  return apiEntries().map(({ spec, file }) => {
    const names: ApiName[] = [];
    for (const [name, found] of reader.exportsOf(file)) {
      const declared = rel(found.file);
      names.push({ name, kind: found.kind, wire: found.kind === 'type' && WIRE.test(declared), head: reader.head(found), file: declared });
    }
    const reached = new Set<string>();
    const walk = (f: string) => {
      if (reached.has(f)) return;
      reached.add(f);
      const src = reader.text(f);
      for (const m of src.matchAll(/\bexport\s+(?:type\s+)?(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?)\s*from\s*['"]([^'"]+)['"]/g)) {
        const target = resolveModule(f, m[1]!);
        if (target) walk(target);
      }
    };
    walk(file);
    return { spec, file: rel(file), names: names.sort(byName), reached: [...reached].map(rel).sort() };
  });
}

/** Counts of an entry: values, types that are not wire types, wire types. */
export function countsOf(entry: ApiEntry): { names: number; values: number; types: number; wire: number } {
  let values = 0;
  let types = 0;
  let wire = 0;
  for (const n of entry.names) {
    if (n.kind === 'value') values++;
    else if (n.wire) wire++;
    else types++;
  }
  return { names: entry.names.length, values, types, wire };
}

/** A Markdown code span holding `text` (a fence longer than any run of backticks inside). */
function code(text: string): string {
  if (!text) return '';
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest ? ' ' : '';
  return `${fence}${pad}${text.replace(/\|/g, '\\|')}${pad}${fence}`;
}

/** The report's Markdown. */
export function renderReport(entries: readonly ApiEntry[]): string {
  const lines: string[] = [
    '# API report',
    '',
    '<!-- Generated by `npm run api-report` (test/helpers/api-report.ts); test/unit/api-report.test.ts fails when it differs from the code. Do not edit. -->',
    '',
    "Every public name of gw's plugin SDK, per entry of package.json `exports`. Wire types are",
    "the types declared in a protocol kit's `types.ts` or in `lib/common/chat.ts` (the common",
    "format: OpenAI chat's wire shape); they are counted apart from the SDK's size. A name",
    'exported by two entries counts in each.',
    '',
    '| entry | names | values | types | wire types |',
    '|---|---:|---:|---:|---:|',
  ];
  const total = { names: 0, values: 0, types: 0, wire: 0 };
  for (const e of entries) {
    const c = countsOf(e);
    lines.push(`| \`${e.spec}\` | ${c.names} | ${c.values} | ${c.types} | ${c.wire} |`);
    total.names += c.names;
    total.values += c.values;
    total.types += c.types;
    total.wire += c.wire;
  }
  lines.push(`| **total** | ${total.names} | ${total.values} | ${total.types} | ${total.wire} |`, '');
  lines.push(`Public names without wire types: **${total.names - total.wire}**.`, '');
  for (const e of entries) {
    const c = countsOf(e);
    lines.push(`## \`${e.spec}\``, '', `${e.file}: ${c.values} values, ${c.types} types, ${c.wire} wire types.`, '');
    lines.push('| kind | name | declaration | declared in |', '|---|---|---|---|');
    for (const n of e.names) lines.push(`| ${n.wire ? 'wire type' : n.kind} | \`${n.name}\` | ${code(n.head)} | ${n.file} |`);
    lines.push('');
  }
  return lines.join('\n');
}

if (import.meta.main) {
  writeFileSync(REPORT_PATH, renderReport(readApi()));
  console.log(`wrote ${rel(REPORT_PATH)}`);
}
