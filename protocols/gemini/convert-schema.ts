/**
 * Google's Schema (the OpenAPI 3.0 subset of `functionDeclarations[].parameters` and
 * `generationConfig.responseSchema`) → JSON Schema, as the common format's `parameters`
 * and `response_format.json_schema.schema` expect. Follows the Gemini API reference, "Schema"
 * and "Type"; the README's "Schemas" section has the rules.
 */
import { badRequest, isObject } from 'gw/plugin';
import { setOwn } from '../../lib/own.ts';

type Obj = Record<string, unknown>;

/** Google `Type` names → JSON Schema type names. */
const TYPES: Readonly<Record<string, string>> = {
  STRING: 'string',
  NUMBER: 'number',
  INTEGER: 'integer',
  BOOLEAN: 'boolean',
  ARRAY: 'array',
  OBJECT: 'object',
  NULL: 'null',
};

/** int64 fields: proto3 JSON writes them as strings (`"minItems": "1"`). */
const INT64_FIELDS = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

/** Keywords whose values are data, not schemas: never rewritten. */
const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);

/** Google-only keywords with no JSON Schema meaning. */
const GOOGLE_ONLY = new Set(['propertyOrdering', 'nullable', 'example']);

/**
 * Converts a Google Schema to JSON Schema, recursively: types lower-cased, `nullable` → a
 * `"null"` type, int64 strings → numbers, `example` → `examples`; other keywords kept.
 * @throws GatewayError 400 naming `param` (and the path inside) when a node is not an object.
 */
export function googleSchemaToJsonSchema(schema: unknown, param: string): Obj {
  if (!isObject(schema)) throw badRequest(`${param} must be a schema object`, param);
  const out: Obj = {};
  for (const [key, value] of Object.entries(schema)) {
    if (GOOGLE_ONLY.has(key)) continue;
    switch (key) {
      case 'type': {
        const t = jsonType(value, `${param}.type`);
        if (t !== undefined) out.type = t;
        break;
      }
      case 'properties': {
        if (!isObject(value)) throw badRequest(`${param}.properties must be an object`, `${param}.properties`);
        const props: Obj = {};
        // a property may be named `__proto__`: stored as data, not as the object's prototype
        for (const [name, sub] of Object.entries(value)) setOwn(props, name, googleSchemaToJsonSchema(sub, `${param}.properties.${name}`));
        out.properties = props;
        break;
      }
      case 'items':
        out.items = googleSchemaToJsonSchema(value, `${param}.items`);
        break;
      case 'anyOf':
        if (!Array.isArray(value)) throw badRequest(`${param}.anyOf must be an array`, `${param}.anyOf`);
        out.anyOf = value.map((s, i) => googleSchemaToJsonSchema(s, `${param}.anyOf[${i}]`));
        break;
      default:
        setOwn(out, key, INT64_FIELDS.has(key) && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
    }
  }
  if ((out.type === 'integer' || out.type === 'number') && Array.isArray(out.enum)) {
    out.enum = out.enum.map((v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v));
  }
  if (schema.example !== undefined && out.examples === undefined) out.examples = [schema.example];
  if (schema.nullable === true) makeNullable(out);
  return out;
}

/**
 * A `parametersJsonSchema` / `responseJsonSchema` with upper-case Google type names lower-cased
 * (Gemini CLI sends `"OBJECT"`; other vendors reject it). Copy-on-write: a valid one is returned as is.
 * @throws GatewayError 400 naming `param` when it is not an object.
 */
export function normalizeJsonSchema(schema: unknown, param: string): Obj {
  if (!isObject(schema)) throw badRequest(`${param} must be a JSON Schema object`, param);
  return fixTypeCase(schema) as Obj;
}

function fixTypeCase(node: unknown): unknown {
  if (Array.isArray(node)) {
    let copy: unknown[] | undefined;
    node.forEach((v, i) => {
      const fixed = fixTypeCase(v);
      if (fixed !== v) (copy ??= [...node])[i] = fixed;
    });
    return copy ?? node;
  }
  if (!isObject(node)) return node;
  let copy: Obj | undefined;
  for (const [key, value] of Object.entries(node)) {
    if (VALUE_KEYWORDS.has(key)) continue;
    // a string `type` is a keyword; an object one is a property called "type" (under `properties`)
    const fixed = key === 'type' && typeof value === 'string' ? (Object.hasOwn(TYPES, value) ? TYPES[value] : value) : fixTypeCase(value);
    if (fixed !== value) (copy ??= { ...node })[key] = fixed;
  }
  return copy ?? node;
}

function jsonType(value: unknown, param: string): string | string[] | undefined {
  if (Array.isArray(value)) return value.map((v, i) => jsonType(v, `${param}[${i}]`) as string);
  if (typeof value !== 'string') throw badRequest(`${param} must be a type name`, param);
  if (value === 'TYPE_UNSPECIFIED') return undefined;
  return Object.hasOwn(TYPES, value) ? TYPES[value] : value;
}

function makeNullable(out: Obj): void {
  if (typeof out.type === 'string') out.type = out.type === 'null' ? 'null' : [out.type, 'null'];
  else if (Array.isArray(out.type)) {
    if (!out.type.includes('null')) out.type = [...out.type, 'null'];
  } else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
}
