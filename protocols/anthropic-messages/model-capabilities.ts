/**
 * What a Claude model accepts, read from its id: the Messages API requires `max_tokens` and
 * rejects thinking or sampling settings a model does not support, where an OpenAI client
 * would not expect a 400. Sources: Anthropic's "Models overview" ("Max output" row), "Legacy
 * models", "Adaptive thinking", and the Messages API reference (`temperature`, `top_p`).
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
 * Default `max_tokens` (tokens) when the client sent none: the model's "Max output", so an
 * OpenAI client gets no cap but the model's; 4096 for non-Claude ids. Where the docs were
 * unclear (sonnet-4-6) the lower value wins: too high fails every request, too low only caps.
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
 * How a model takes a reasoning request: `none` (Claude 3.0/3.5), `budget` (`thinking.budget_tokens`;
 * also non-Claude ids, the form compatible vendors document) or `adaptive` (`output_config.effort`;
 * budget_tokens is deprecated on 4.6 and rejected with 400 from opus 4.7).
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

/** True for models released after Opus 4.6: they accept only `temperature: 1`, `top_p >= 0.99`, no `top_k`. */
export function hasFixedSampling(model: string): boolean {
  const m = parseClaudeModel(model);
  if (!m) return false;
  if (m.version === undefined) return true;
  if (m.version >= 50) return true;
  return m.family === 'opus' && m.version >= 47;
}

/** True when `output_config.format` is available (Anthropic's "Structured outputs"); non-Claude ids get the benefit of the doubt. */
export function supportsStructuredOutputs(model: string): boolean {
  const m = parseClaudeModel(model);
  if (!m || m.version === undefined) return true;
  if (m.family === 'opus') return m.version >= 41;
  return m.version >= 45;
}
