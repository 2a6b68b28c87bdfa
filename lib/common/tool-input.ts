/** A tool call's `arguments` JSON text as the object Messages' `tool_use.input` and Gemini's `args` carry. */

/**
 * Blank or `null` → `{}`; anything not a JSON object → `{"_raw": "<arguments>"}`: the client's
 * validation then fails and the model sees its own text, where `{}` would run the tool without it.
 */
export function toToolInput(args: string | undefined | null): Record<string, unknown> {
  if (typeof args !== 'string' || args.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(args);
    if (v === null) return {};
    if (typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through: keep the text for the client
  }
  return { _raw: args };
}
