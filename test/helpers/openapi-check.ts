/**
 * A by-hand check of values against the official OpenAI OpenAPI document, as far as the
 * Responses shapes reach (`test/fixtures/specs/openai.responses.openapi.json`, cut from the
 * whole document: see PROVENANCE.md there): the subset of JSON Schema those shapes use
 * ($ref, allOf, anyOf/oneOf with or without a discriminator, required, const, enum, types,
 * items, properties). Unknown properties are allowed (the format is open).
 */
import { readFileSync } from 'node:fs';

type Schema = Record<string, unknown>;

const schemas = (
  JSON.parse(readFileSync(new URL('../fixtures/specs/openai.responses.openapi.json', import.meta.url), 'utf8')) as {
    components: { schemas: Record<string, Schema> };
  }
).components.schemas;

function resolve(ref: string): Schema {
  const s = schemas[ref.split('/').pop()!];
  if (!s) throw new Error(`no schema ${ref}`);
  return s;
}

/** The values a discriminating property may take in one option (its const or enum), or undefined. */
function tagsOf(option: Schema, prop: string): unknown[] | undefined {
  const s = typeof option.$ref === 'string' ? resolve(option.$ref) : option;
  const p = (s.properties as Record<string, Schema> | undefined)?.[prop];
  if (!p) return undefined;
  if ('const' in p) return [p.const];
  if (Array.isArray(p.enum)) return p.enum;
  const any = (p.anyOf as Schema[] | undefined)?.find((o) => Array.isArray(o.enum));
  return any ? (any.enum as unknown[]) : undefined;
}

function check(value: unknown, schema: Schema, path: string, errors: string[]): void {
  if (typeof schema.$ref === 'string') {
    check(value, resolve(schema.$ref), path, errors);
    return;
  }
  for (const part of (schema.allOf as Schema[] | undefined) ?? []) check(value, part, path, errors);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (!options) continue;
    const disc =
      (schema.discriminator as { propertyName: string } | undefined)?.propertyName ??
      (options.every((o) => tagsOf(o, 'type') !== undefined) ? 'type' : undefined);
    if (disc && value !== null && typeof value === 'object') {
      const tag = (value as Record<string, unknown>)[disc];
      const option = options.find((o) => tagsOf(o, disc)?.includes(tag));
      if (!option) return void errors.push(`${path}: no ${key} option for ${disc} ${String(tag)}`);
      check(value, option, path, errors);
    } else if (
      !options.some((o) => {
        const e: string[] = [];
        check(value, o, path, e);
        return e.length === 0;
      })
    ) {
      return void errors.push(`${path}: matches no ${key} option (${JSON.stringify(value)?.slice(0, 80)})`);
    }
  }
  if ('const' in schema && value !== schema.const) errors.push(`${path}: expected ${String(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${path}: ${String(value)} not in enum`);
  const type = schema.type;
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (typeof type === 'string' && type !== actual && !(type === 'number' && actual === 'integer')) {
    return void errors.push(`${path}: expected ${type}, got ${actual}`);
  }
  if (actual === 'array' && schema.items) for (const [i, v] of (value as unknown[]).entries()) check(v, schema.items as Schema, `${path}[${i}]`, errors);
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    for (const req of (schema.required as string[] | undefined) ?? []) if (!(req in obj)) errors.push(`${path}.${req}: required`);
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const [k, v] of Object.entries(obj)) if (props[k]) check(v, props[k], `${path}.${k}`, errors);
  }
}

/** Every violation of `components.schemas[schemaName]` by `value`, as `path: problem`. */
export function violations(value: unknown, schemaName: string): string[] {
  const errors: string[] = [];
  check(value, { $ref: `#/components/schemas/${schemaName}` }, schemaName, errors);
  return errors;
}
