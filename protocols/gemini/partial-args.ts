/**
 * Streamed function-call arguments (`functionCall.partialArgs`, Vertex's
 * `streamFunctionCallArguments`) folded back into one `args` object.
 * @see Vertex AI docs: Function calling › Streaming function call arguments
 */
import { setOwn } from '../../lib/own.ts';
import type { PartialArg } from './types.ts';

type Segment = string | number;

/**
 * Applies each partial argument to `args` in place. A `stringValue` for a path that
 * already holds a string is a continuation and is appended; any other value is set.
 * Paths are `$.a.b[0].c`; an unreadable path is skipped rather than guessed at.
 */
export function applyPartialArgs(args: Record<string, unknown>, partials: readonly PartialArg[]): void {
  for (const arg of partials) {
    const path = parsePath(arg.jsonPath);
    if (path === undefined || path.length === 0) continue;
    const existing = getAt(args, path);
    if (typeof arg.stringValue === 'string' && typeof existing === 'string') {
      setAt(args, path, existing + arg.stringValue);
      continue;
    }
    const value = arg.stringValue ?? arg.numberValue ?? arg.boolValue;
    if (value !== null && value !== undefined) setAt(args, path, value);
    else if ('nullValue' in arg) setAt(args, path, null);
  }
}

function parsePath(jsonPath: string): Segment[] | undefined {
  if (!jsonPath.startsWith('$')) return undefined;
  const rest = jsonPath.slice(1);
  const segments: Segment[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]/y;
  while (re.lastIndex < rest.length) {
    const m = re.exec(rest);
    if (m === null) return undefined;
    segments.push(m[1] !== undefined ? m[1] : Number(m[2]));
  }
  return segments;
}

function getAt(root: Record<string, unknown>, path: Segment[]): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, seg)) return undefined;
    cur = (cur as Record<Segment, unknown>)[seg];
  }
  return cur;
}

function setAt(root: Record<string, unknown>, path: Segment[], value: unknown): void {
  let cur = root as Record<Segment, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i]!;
    const next = Object.hasOwn(cur, seg) ? cur[seg] : undefined;
    if (typeof next === 'object' && next !== null) {
      cur = next as Record<Segment, unknown>;
    } else {
      const created = typeof path[i + 1] === 'number' ? [] : {};
      setOwn(cur, seg, created);
      cur = created as Record<Segment, unknown>;
    }
  }
  // not assignment: a key like `__proto__` must become data, not a prototype
  setOwn(cur, path[path.length - 1]!, value);
}
