/**
 * Output-token caps of a provider's models (`max_output_tokens` of its section): one number
 * for every model, or a table of model ids and `*` patterns. A request asking for more than
 * its served model's cap is sent with the cap instead (core/pipeline/generate.ts): upstreams
 * refuse a cap above the model's own (Gemini: 400 "supported range is from 1 (inclusive) to
 * 65537 (exclusive)"; OpenAI's gpt-4o: 400 above 16,384), while agents ask for their own
 * maximum whatever the model serving them (Claude Code: 128,000 tokens for its default model).
 *
 * Precedence as for alias patterns (lib/alias-patterns.ts): an exact id first, then the
 * longest pattern, then the one with fewer `*`.
 */
import { comparePatterns } from './alias-patterns.ts';
import { globMatch } from './model-glob.ts';

/** The setting as written: tokens for every model, or tokens by model id or pattern. */
export type OutputCapSetting = number | Readonly<Record<string, number>>;

/** A model's cap in tokens, or undefined when it has none. */
export type OutputCap = (model: string) => number | undefined;

/** The lookup for a section's setting; undefined when it sets none. */
export function compileOutputCaps(setting: OutputCapSetting | undefined): OutputCap | undefined {
  if (setting === undefined) return undefined;
  if (typeof setting === 'number') return () => setting;
  const exact = new Map<string, number>();
  const patterns: Array<[string, number]> = [];
  for (const [model, tokens] of Object.entries(setting)) {
    if (model.includes('*')) patterns.push([model, tokens]);
    else exact.set(model, tokens);
  }
  patterns.sort((a, b) => comparePatterns(a[0], b[0]));
  return (model) => {
    const own = exact.get(model);
    if (own !== undefined) return own;
    for (const [pattern, tokens] of patterns) if (globMatch(pattern, model)) return tokens;
    return undefined;
  };
}
