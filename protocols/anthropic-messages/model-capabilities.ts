/**
 * What a Claude model accepts, read from its id. The request translator needs this
 * because the Messages API requires `max_tokens` and rejects thinking or sampling
 * settings a model does not support, where an OpenAI client would not expect a 400.
 *
 * Sources (max output tokens, thinking modes, sampling):
 * @see https://docs.anthropic.com/en/docs/about-claude/models/overview ("Max output" row)
 * @see https://docs.anthropic.com/en/docs/about-claude/models/legacy-models
 * @see https://docs.anthropic.com/en/docs/build-with-claude/adaptive-thinking
 * @see https://docs.anthropic.com/en/api/messages (`temperature`, `top_p`: "Deprecated. Models released after
 *   Claude Opus 4.6 do not support setting temperature. A value of 1.0 … will be accepted", as
 *   Anthropic's 2026 OpenAPI spec words it)
 */

/** A Claude model id reduced to family and version (`claude-opus-4-1-20250805` → opus 4.1). */
export interface ClaudeModel {
  family: 'opus' | 'sonnet' | 'haiku' | 'mythos' | 'fable' | (string & {});
  /** major * 10 + minor: 3.5 → 35, 4 → 40, 4.6 → 46. Undefined for unversioned ids (`claude-mythos-preview`). */
  version: number | undefined;
}

// New ids put the family first (claude-opus-4-1-20250805); 3.x ids put it last
// (claude-3-5-sonnet-20241022). The minor is one or two digits so a date never reads as one.
// Not anchored: Bedrock/Vertex ids carry prefixes and suffixes (us.anthropic.…-v1:0, …@20250514).
const NEW_ID = /claude-(opus|sonnet|haiku|mythos|fable)(?:-(\d{1,2})(?:[-.](\d{1,2}))?)?(?!\d)/;
const OLD_ID = /claude-(\d)(?:[-.](\d))?-(opus|sonnet|haiku)/;

/** Parse a Claude model id; undefined for ids that are not Claude's (Messages-compatible vendors). */
export function parseClaudeModel(model: string): ClaudeModel | undefined {
  const id = model.toLowerCase();
  const old = OLD_ID.exec(id);
  if (old) return { family: old[3], version: Number(old[1]) * 10 + Number(old[2] ?? 0) };
  const cur = NEW_ID.exec(id);
  if (!cur) return undefined;
  if (cur[2] === undefined) return { family: cur[1], version: undefined };
  return { family: cur[1], version: Number(cur[2]) * 10 + Number(cur[3] ?? 0) };
}

/**
 * Default `max_tokens` when the client gave neither `max_completion_tokens` nor
 * `max_tokens`: the model's maximum output, so an OpenAI client gets what it would get
 * from OpenAI (no cap but the model's). Table from the models overview "Max output" row:
 *
 * | model                                              | default |
 * |----------------------------------------------------|---------|
 * | claude-3-opus / claude-3-sonnet / claude-3-haiku    |   4096  |
 * | claude-3-5-sonnet / claude-3-5-haiku               |   8192  |
 * | claude-3-7-sonnet                                  |  64000  |
 * | claude-opus-4 / claude-opus-4-1                    |  32000  |
 * | claude-sonnet-4 / -4-5, claude-haiku-4-5, opus-4-5 |  64000  |
 * | claude-sonnet-4-6 and other sonnet/haiku 4.x       |  64000  |
 * | claude-opus-4-6 and later opus, any 5.x, mythos    | 128000  |
 * | other claude-* ids                                 |  64000  |
 * | non-Claude ids (Messages-compatible vendors)       |   4096  |
 *
 * Where the docs were unclear (sonnet-4-6), the lower value is used: a default above the
 * model's limit fails every request, one below it only caps very long answers.
 */
export function defaultMaxTokens(model: string): number {
  const m = parseClaudeModel(model);
  if (!m) return 4096;
  const v = m.version;
  if (v === undefined) return m.family === 'mythos' || m.family === 'fable' ? 128000 : 64000;
  if (v < 35) return 4096;
  if (v < 37) return 8192;
  if (v < 40) return 64000;
  if (m.family === 'opus') return v < 45 ? 32000 : v < 46 ? 64000 : 128000;
  if (v >= 50 && m.family !== 'haiku') return 128000;
  return 64000;
}

/**
 * How a model takes a reasoning request:
 * - `none`: no extended thinking (Claude 3.0/3.5);
 * - `budget`: `thinking: {type:'enabled', budget_tokens}` (3.7 up to 4.5, and non-Claude ids,
 *   since Messages-compatible vendors document that form);
 * - `adaptive`: `thinking: {type:'adaptive'}` + `output_config.effort`; budget_tokens is
 *   deprecated (opus/sonnet 4.6) or rejected with 400 (opus 4.7+, mythos, 5.x).
 */
export function thinkingStyle(model: string): 'none' | 'budget' | 'adaptive' {
  const m = parseClaudeModel(model);
  if (!m) return 'budget';
  if (m.version === undefined) return 'adaptive';
  if (m.version < 37) return 'none';
  if (m.version >= 50) return 'adaptive';
  if (m.version >= 46 && (m.family === 'opus' || m.family === 'sonnet')) return 'adaptive';
  return 'budget';
}

/**
 * True for models that reject sampling parameters: per the 2026 spec, models released
 * after Claude Opus 4.6 accept only `temperature: 1`, `top_p >= 0.99` and no `top_k`.
 */
export function hasFixedSampling(model: string): boolean {
  const m = parseClaudeModel(model);
  if (!m) return false;
  if (m.version === undefined) return true;
  if (m.version >= 50) return true;
  return m.family === 'opus' && m.version >= 47;
}

/**
 * True when `output_config.format` (structured outputs) is available: Opus 4.1+,
 * Sonnet/Haiku 4.5+ and later models. Non-Claude ids are given the benefit of the doubt.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs
 */
export function supportsStructuredOutputs(model: string): boolean {
  const m = parseClaudeModel(model);
  if (!m || m.version === undefined) return true;
  if (m.family === 'opus') return m.version >= 41;
  return m.version >= 45;
}
