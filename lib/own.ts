/**
 * User-chosen names (tags, model ids, keys) as keys of plain objects, own properties only:
 * `obj[name]` finds `Object.prototype`'s members, `obj['__proto__'] = v` replaces the prototype.
 */

/** `obj[name]` when `obj` has it as an own property, else undefined. */
export function own<T>(obj: Readonly<Record<string, T>> | null | undefined, name: string): T | undefined {
  return obj != null && Object.hasOwn(obj, name) ? obj[name] : undefined;
}

/** Stores `value` under `key` as data, even for `__proto__` (assignment would set the prototype). */
export function setOwn(obj: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, configurable: true, writable: true });
}

/** The path to the first `__proto__` key in a parsed TOML tree (zod's records drop it silently); no recursion. */
export function protoKeyPath(root: unknown): Array<string | number> | undefined {
  // each node keeps its parent and key; a path is built only for the node that has one
  const nodes: Array<{ v: object; parent: number; key: string | number }> = [];
  if (typeof root === 'object' && root !== null) nodes.push({ v: root, parent: -1, key: '' });
  for (let n = 0; n < nodes.length; n++) {
    const v = nodes[n]!.v;
    if (!Array.isArray(v) && Object.hasOwn(v, '__proto__')) {
      const path: Array<string | number> = ['__proto__'];
      for (let at = n; at > 0; at = nodes[at]!.parent) path.push(nodes[at]!.key);
      return path.reverse();
    }
    const entries: Iterable<[string | number, unknown]> = Array.isArray(v) ? v.entries() : Object.entries(v);
    for (const [key, child] of entries) if (typeof child === 'object' && child !== null) nodes.push({ v: child, parent: n, key });
  }
  return undefined;
}

/** Why a `__proto__` name is refused (config errors, request bodies). */
export const PROTO_NAME = '"__proto__" cannot be a name here (JavaScript objects reserve it); choose another';
