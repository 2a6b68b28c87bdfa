/**
 * Caps on the total of what an array's items hold (lib/common/limits.ts `cappedTotal`), kept beside
 * the array schema: validate-sliced.ts checks long arrays a slice at a time, and still needs the total.
 */
import type { z } from 'zod';

/** The message of the cap `list` breaks, or undefined within it. */
export type TotalCheck = (list: readonly unknown[]) => string | undefined;

const checks = new WeakMap<z.ZodType, TotalCheck>();

/** `array` with `check` run on its items (a zod issue on the array), registered for {@link totalCheckOf}. */
export function withTotal<T extends z.ZodArray>(array: T, check: TotalCheck): T {
  const checked = array.superRefine((list, ctx) => {
    const message = check(list);
    if (message !== undefined) ctx.addIssue({ code: 'custom', message });
  }) as T;
  checks.set(checked, check);
  return checked;
}

/** The total check of an array schema made by {@link withTotal}, if any. */
export function totalCheckOf(schema: z.ZodType): TotalCheck | undefined {
  return checks.get(schema);
}
