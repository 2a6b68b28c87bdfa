/**
 * `[extensions.recorder]`: where the cassette goes and what is recorded.
 */
import { NEVER_KEPT } from 'gw/plugin/cassette';
import { z } from 'zod';

const names = z.array(z.string().min(1)).min(1);

export const recorderSchema = z.strictObject({
  /** The cassette: a `.jsonl` file, appended to (created with its folder). Relative to the config file. */
  path: z.string().min(1, 'expected the cassette file, e.g. "cassettes/session.jsonl"'),
  /** What is recorded; each list left out records everything on its axis. */
  filter: z
    .strictObject({
      /** Canonical model ids or patterns with `*` (`gpt-4o*`). */
      models: names.optional(),
      /** Gateway key names (`(open)` for a gateway without keys). */
      keys: names.optional(),
      /** Gateway routes: `chat`, `responses`, `messages`, `count_tokens`, `gemini`, `embeddings`… */
      routes: names.optional(),
    })
    .default({}),
  /** More headers to keep, beside the built-in allow-list; never one that looks like a credential. */
  headers: z
    .array(z.string().regex(/^[A-Za-z0-9-]+$/, 'expected a header name'))
    .default([])
    .refine((list) => list.every((h) => !NEVER_KEPT.test(h)), { message: 'a header that looks like a credential or an account id is never recorded' }),
  /** Largest response body kept, bytes; a larger one is kept cut and marked incomplete. */
  max_body_bytes: z.number().int().positive().default(33_554_432),
  /** Bound on the lines waiting for the disk, bytes; past it new entries are dropped and counted. */
  max_queue_bytes: z.number().int().positive().default(67_108_864),
});

export type RecorderConfig = z.output<typeof recorderSchema>;

/** `*` matches any run of characters; everything else itself. */
export function patternMatcher(patterns: readonly string[] | undefined): ((value: string) => boolean) | undefined {
  if (!patterns) return undefined;
  const res = patterns.map((p) => new RegExp(`^${p.split('*').map(escapeRe).join('.*')}$`));
  return (value) => res.some((re) => re.test(value));
}

function escapeRe(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}
