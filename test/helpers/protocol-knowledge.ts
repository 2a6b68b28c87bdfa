/**
 * Finding where code knows a wire protocol (test/unit/no-protocol-knowledge.test.ts): a small
 * scanner splits TypeScript into code, string literals and comments (comments dropped, each
 * string literal kept as one token), then the rules run on the code with every string in
 * place as the token `"S"`. TypeScript 7 ships no JavaScript compiler API, so this scans.
 */

/** Code with each string literal replaced by `"S"` (comments by spaces, lines kept), and the literals by their index. */
export interface Scanned {
  code: string;
  strings: Array<{ value: string; line: number }>;
}

const REGEX_BEFORE = '(,=:[!&|?{};+-*%<>~^';
const REGEX_AFTER_WORDS = new Set(['return', 'typeof', 'case', 'in', 'of', 'delete', 'void', 'throw', 'new', 'else', 'do', 'yield', 'await']);

/** Splits `src` into code and literals. Template literals count as one string (their text, substitutions included). */
export function scan(src: string): Scanned {
  let code = '';
  const strings: Scanned['strings'] = [];
  let line = 1;
  let prev = '';
  let word = '';
  let i = 0;
  const n = src.length;
  const skipTo = (end: number) => {
    for (let k = i; k < end; k++) if (src[k] === '\n') line++;
    code += src.slice(i, end).replace(/[^\n]/g, ' ');
    i = end;
  };
  while (i < n) {
    const c = src[i]!;
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      skipTo(end === -1 ? n : end);
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      skipTo(end === -1 ? n : end + 2);
    } else if (c === "'" || c === '"' || c === '`') {
      const start = line;
      let j = i + 1;
      let depth = 0;
      while (j < n && !(src[j] === c && depth === 0)) {
        if (src[j] === '\\') j++;
        else if (c === '`' && src[j] === '$' && src[j + 1] === '{') depth++;
        else if (c === '`' && depth > 0 && src[j] === '}') depth--;
        else if (src[j] === '\n') line++;
        j++;
      }
      strings.push({ value: src.slice(i + 1, j), line: start });
      code += `"S"${'\n'.repeat(line - start)}`;
      i = j + 1;
      prev = 'a';
      word = '';
    } else if (c === '/' && (word ? REGEX_AFTER_WORDS.has(word) : prev === '' || REGEX_BEFORE.includes(prev))) {
      let j = i + 1;
      let inClass = false;
      while (j < n && src[j] !== '\n' && (src[j] !== '/' || inClass)) {
        if (src[j] === '\\') j++;
        else if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
        j++;
      }
      code += ' '.repeat(j + 1 - i);
      i = j + 1;
      prev = 'a';
      word = '';
    } else {
      if (c === '\n') line++;
      code += c;
      if (/[\w$]/.test(c)) {
        word = /[\w$]/.test(prev) || prev === 'a' ? word + c : c;
        prev = 'a';
      } else if (!/\s/.test(c)) {
        prev = c;
        word = '';
      }
      i++;
    }
  }
  return { code, strings };
}

/** A format read anywhere: `x.format`, `x?.format`, or a variable called `format`. */
const FORMAT = String.raw`(?:[\w$]+(?:\?\.|\.))*format\b`;
/** A comparison of a format with something that is not a string literal, either side. */
const COMPARED = new RegExp(String.raw`\b${FORMAT}\s*[!=]==?\s*(?!"S")[\w$(]|[\w$)\]]\s*[!=]==?\s*${FORMAT}`, 'g');
const SWITCH = new RegExp(String.raw`\bswitch\s*\(\s*${FORMAT}\s*\)\s*\{`, 'g');
const LOOKUP = new RegExp(String.raw`\[\s*${FORMAT}\s*\]`, 'g');

/** Every place in `source` (named `file`) where code knows a protocol among `ids`: `file:line: what`. */
export function protocolKnowledge(file: string, source: string, ids: ReadonlySet<string>): string[] {
  const { code, strings } = scan(source);
  const found: Array<[number, string]> = [];
  const lineOf = (at: number) => code.slice(0, at).split('\n').length;
  for (const s of strings) if (ids.has(s.value)) found.push([s.line, `the protocol id '${s.value}'`]);
  for (const m of code.matchAll(COMPARED)) found.push([lineOf(m.index), 'a comparison of a format with a name']);
  for (const m of code.matchAll(SWITCH))
    if (/\bcase\s+(?!"S"\s*:)/.test(block(code, m.index + m[0].length))) found.push([lineOf(m.index), 'a switch on a format by name']);
  for (const m of code.matchAll(LOOKUP)) found.push([lineOf(m.index), 'a lookup by format']);
  return found.sort((a, b) => a[0] - b[0]).map(([line, what]) => `${file}:${line}: ${what}`);
}

/** The text of the block that opened just before `from`, up to its closing brace. */
function block(code: string, from: number): string {
  let depth = 1;
  let i = from;
  while (i < code.length && depth > 0) {
    if (code[i] === '{') depth++;
    else if (code[i] === '}') depth--;
    i++;
  }
  return code.slice(from, i);
}
