/**
 * `kind = "replay"`: a provider answering from a cassette (docs/record-replay.md).
 */
import { compilePath } from 'gw/plugin/cassette';
import { z } from 'zod';

export const replaySchema = z
  .strictObject({
    kind: z.literal('replay').optional(),
    /** A cassette file (`.jsonl`) or a folder of them. Relative to the config file. */
    cassette: z.string().min(1, 'expected a cassette file or folder, e.g. "test/cassettes/ci.jsonl"'),
    /** Models served; default: every model the cassette's recordings of this provider asked for. */
    models: z.array(z.string().min(1)).min(1).optional(),
    /** The recorded provider to replay; default: this section's name, else the cassette's only provider. */
    provider: z.string().min(1).optional(),
    /** `exact`: by the canonical body; `sequence`: the n-th call of a conversation gets its n-th recording. */
    match: z.enum(['exact', 'sequence']).default('exact'),
    /** JSON paths of the request left out of the match (`temperature`, `metadata.*`, `messages[0]`). */
    ignore: z
      .array(z.string().min(1))
      .default([])
      .superRefine((paths, ctx) => {
        for (const [i, p] of paths.entries()) {
          try {
            compilePath(p);
          } catch (err) {
            ctx.addIssue({ code: 'custom', path: [i], message: (err as Error).message });
          }
        }
      }),
    /** Stream pace: 0 as fast as possible (the default), 1 the recorded pace, 2 twice as fast. */
    speed: z.number().min(0).max(1000).default(0),
    /** `none`: replay only; `once`: record everything while the cassette holds nothing for this provider, else replay only; `new`: replay what is recorded, record the rest. */
    record_mode: z.enum(['once', 'new', 'none']).default('none'),
    /** The real upstream, as a `[providers.*]` section (its `kind`, `api_key`, `base_url`…): where a record mode sends what is not recorded. */
    upstream: z.record(z.string(), z.unknown()).optional(),
    /** Settings given to the recorded kind over those recorded (a setting the recorder could not keep). */
    settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.record_mode !== 'none' && c.upstream === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['upstream'],
        message: `record_mode = "${c.record_mode}" records from a real upstream: give it as a table, e.g. [providers.<name>.upstream] with kind, api_key and base_url`,
      });
    if (c.upstream !== undefined && typeof c.upstream.kind !== 'string')
      ctx.addIssue({ code: 'custom', path: ['upstream', 'kind'], message: 'expected the real upstream\'s kind, e.g. "openai"' });
  });

export type ReplayConfig = z.output<typeof replaySchema>;
