/**
 * Validating a large body a slice at a time: its long arrays (found by walking the schema
 * beside the value) are cut out and checked in slices with a turn of the event loop between,
 * the rest first; the answer is `validate`'s. One zod parse of 130,000 parts is ~100 ms of one task.
 */
import { z } from 'zod';
import type { GatewayError } from '../core/errors.ts';
import { invalidBody } from './schemas.ts';
import { totalCheckOf } from './array-totals.ts';

/** Arrays longer than this are cut out and checked item by item. */
const LONG = 256;
/** Items (counting the items of the arrays inside them) checked between two turns of the loop. */
const SLICE = 4096;

/** A long array cut out of the body, to check later: where it was and its schema. */
interface Cut {
  schema: z.ZodArray;
  items: unknown[];
  path: PropertyKey[];
}

type Def = { type: string; innerType?: z.ZodType; options?: z.ZodType[]; shape?: Record<string, z.ZodType>; element?: z.ZodType };

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Validates `body` as `validate` does, taking `turn()` between slices of its long arrays. */
export async function validateInSlices(schema: z.ZodType, body: unknown, turn: () => Promise<void>): Promise<GatewayError | undefined> {
  const cuts: Cut[] = [];
  const walk: Walk = { work: 0, path: [] };
  const top = cut(schema, body, walk, cuts);
  const r = schema.safeParse(top);
  if (!r.success) return invalidBody(r.error.issues[0]!);
  if (walk.over) return invalidBody({ code: 'custom', message: walk.over.message, path: [], input: undefined }, walk.over.path);
  for (let c = 0; c < cuts.length; c++) {
    const { schema: array, items, path } = cuts[c]!;
    const length = lengthOnly(array).safeParse(items);
    if (!length.success) return invalidBody(length.error.issues[0]!, path);
    const element = defOf(array).element!;
    for (let i = 0; i < items.length; i++) {
      walk.path = [...path, i];
      const item = cut(element, items[i], walk, cuts);
      const e = element.safeParse(item);
      if (!e.success) return invalidBody(e.error.issues[0]!, walk.path);
      if (++walk.work >= SLICE) {
        walk.work = 0;
        await turn();
      }
    }
  }
  return undefined;
}

/** Where `cut` is in the body, the work it counted, and the first total cap broken (lib/array-totals.ts). */
interface Walk {
  work: number;
  path: PropertyKey[];
  over?: { message: string; path: PropertyKey[] };
}

/** `value` with each long array cut to its first item (pushed to `cuts`); a capped array is checked whole first. */
function cut(schema: z.ZodType, value: unknown, walk: Walk, cuts: Cut[]): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
      return cut(def.innerType!, value, walk, cuts);
    case 'union': {
      if (!Array.isArray(value)) return value;
      let array: z.ZodType | undefined;
      for (const option of def.options!) {
        if (defOf(option).type !== 'array') continue;
        if (array !== undefined) return value;
        array = option;
      }
      return array === undefined ? value : cut(array, value, walk, cuts);
    }
    case 'array': {
      if (!Array.isArray(value)) return value;
      const message = walk.over ? undefined : totalCheckOf(schema)?.(value);
      if (message !== undefined) walk.over = { message, path: walk.path.slice() };
      if (value.length > LONG) {
        cuts.push({ schema: schema as z.ZodArray, items: value, path: walk.path.slice() });
        return value.slice(0, 1);
      }
      walk.work += value.length;
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        walk.path.push(i);
        const v = cut(def.element!, value[i], walk, cuts);
        walk.path.pop();
        if (v !== value[i]) (copy ??= value.slice())[i] = v;
      }
      return copy ?? value;
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
      const o = value as Record<string, unknown>;
      let copy: Record<string, unknown> | undefined;
      for (const key in def.shape!) {
        if (!Object.hasOwn(o, key)) continue;
        walk.path.push(key);
        const v = cut(def.shape![key]!, o[key], walk, cuts);
        walk.path.pop();
        if (v !== o[key]) (copy ??= { ...o })[key] = v;
      }
      return copy ?? value;
    }
    default:
      return value;
  }
}

/** The array schema with any element: its own checks (min, max) alone, for a cut array's length. */
const lengthSchemas = new WeakMap<z.ZodArray, z.ZodType>();
function lengthOnly(array: z.ZodArray): z.ZodType {
  let s = lengthSchemas.get(array);
  if (s === undefined) {
    s = array.clone({ ...array._zod.def, element: z.any() } as typeof array._zod.def);
    lengthSchemas.set(array, s);
  }
  return s;
}
