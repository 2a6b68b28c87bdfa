/**
 * Output-token caps of a provider's models (`max_output_tokens`): a request asking more than its
 * served model's cap is sent with the cap, since upstreams refuse more than the model's own while
 * agents ask for their maximum. Precedence as alias patterns'.
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
