/**
 * Bodies of the admin routes (docs/design.md "Routes"). Provider bodies are open: fields beyond
 * these (timeout_seconds, api_version…) go to the kind's own schema, which checks them.
 */
import { z } from 'zod';
import { headerValueSchema } from '../../lib/config/provider-schema.ts';
import { keyPatchSchema, keySettingsShape, MAX_GRACE_SECONDS } from '../../lib/key-settings.ts';

const name = z
  .string({ error: 'required: a name of letters, digits, "_", "-" or "."' })
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected 1-64 letters, digits, "_", "-" or "."');

/** `POST /v1/admin/providers`: `{name, kind, api_key, base_url?, models?}`. */
export const providerCreateSchema = z.looseObject({
  name,
  /** Defaults to `name`, as a `[providers.<name>]` section does. */
  kind: name.optional(),
  /** Checked as the kind's section checks it (lib/config/provider-schema.ts), with the same message. */
  api_key: z.string({ error: 'required: the upstream API key (a string)' }).min(1, 'required: the upstream API key').pipe(headerValueSchema),
  base_url: z.string().min(1).optional(),
  /** Absent or empty → discovered from the upstream's model list. */
  models: z.array(z.string().min(1)).optional(),
});

/** `POST /v1/admin/keys`: `{name}` and any virtual key setting (lib/key-settings.ts). */
export const keyCreateSchema = z.strictObject({ name, ...keySettingsShape });

/** `POST /v1/admin/keys/{name}/rotate`: an optional body `{grace_seconds}` (0 or absent: the old secret stops at once). */
export const keyRotateSchema = z.strictObject({
  grace_seconds: z
    .number({ error: 'expected seconds as a number' })
    .int('expected whole seconds')
    .min(0, 'expected seconds >= 0')
    .max(MAX_GRACE_SECONDS, `at most ${MAX_GRACE_SECONDS} seconds (30 days)`)
    .optional(),
});

export { keyPatchSchema };
