/**
 * A request body's validation on the hot path: zod stays the source of truth, and each schema
 * is compiled once (`z.toJSONSchema` → an ajv validator) into code that checks a valid body
 * without zod's per-node work. A body the compiled check refuses is checked by zod, whose
 * first issue makes the 400 (the same message and `param` as `validate`). A schema the JSON
 * Schema cannot say exactly (a transform, a refinement other than lib/array-totals.ts's
 * total caps) is checked by zod alone. test/unit/validate-compiled.test.ts checks that both
 * agree on a corpus of valid and invalid bodies. why: docs/benchmarks.md#compiled-validation
 */
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import { z } from 'zod';
import type { GatewayError } from '../core/errors.ts';
import { totalCheckOf, type TotalCheck } from './array-totals.ts';
import { validate } from './schemas.ts';

/** The ajv keyword that runs a total cap (lib/array-totals.ts) on an array: its value is the cap's index in `totals`. */
const TOTAL_KEYWORD = 'gwTotal';

const totals: TotalCheck[] = [];
let ajv: Ajv | undefined;
const requireCjs = createRequire(import.meta.url);

/**
 * The compiler, loaded at the first compile: ajv is ~10 MiB of RSS once imported, which a
 * gateway at rest (or one serving no generate route) does not pay.
 */
function compiler(): Ajv {
  if (ajv !== undefined) return ajv;
  const { Ajv } = requireCjs('ajv') as typeof import('ajv');
  // string lengths in code points, as zod counts them (ajv's default); patterns read as JavaScript
  // reads a RegExp without the u flag; strict: a keyword or format ajv does not know fails the
  // compile (the schema is then zod's alone)
  ajv = new Ajv({ strict: true, allErrors: false, unicodeRegExp: false, validateSchema: false });
  ajv.addKeyword({
    keyword: TOTAL_KEYWORD,
    type: 'array',
    schemaType: 'number',
    errors: false,
    validate: (index: number, list: unknown[]) => totals[index]!(list) === undefined,
  });
  return ajv;
}

const compiled = new WeakMap<z.ZodType, ValidateFunction | null>();

type CheckDef = { check?: string };
type ZodInternals = { _zod: { def: { checks?: Array<{ _zod: { def: CheckDef } }> } } };

/** `schema` compiled, or null when its JSON Schema would accept what zod refuses. */
function compile(schema: z.ZodType): ValidateFunction | null {
  let exact = true;
  try {
    const json = z.toJSONSchema(schema, {
      target: 'draft-7',
      io: 'input',
      unrepresentable: 'throw',
      override(ctx) {
        const total = totalCheckOf(ctx.zodSchema as unknown as z.ZodType);
        if (total !== undefined) ctx.jsonSchema[TOTAL_KEYWORD] = totals.push(total) - 1;
        const checks = (ctx.zodSchema as unknown as ZodInternals)._zod.def.checks ?? [];
        // a refinement is code the JSON Schema drops: only the total caps are carried over
        if (total === undefined && checks.some((c) => c._zod.def.check === 'custom')) exact = false;
      },
    });
    return exact ? compiler().compile(json) : null;
  } catch {
    return null;
  }
}

/** The compiled check of `schema` (compiled at its first use), or null when zod alone checks it. */
export function compiledCheck(schema: z.ZodType): ValidateFunction | null {
  let check = compiled.get(schema);
  if (check === undefined) compiled.set(schema, (check = compile(schema)));
  return check;
}

/**
 * `validate`'s answer for `body` (undefined, or the 400 naming the field and the rule), from the
 * compiled check when it passes, else from zod.
 */
export function validateRequest(schema: z.ZodType, body: unknown): GatewayError | undefined {
  const check = compiledCheck(schema);
  if (check?.(body)) return undefined;
  return validate(schema, body);
}
