/**
 * A common-format tool call's `arguments` (a JSON text) as the object the client formats that
 * carry tool input as an object want: Messages' `tool_use.input`, Gemini's `functionCall.args`.
 */

/**
 * A tool call's `arguments` string → an input object. Empty, whitespace or `null` → `{}`
 * (no-argument tools send these). Anything that is not a JSON object (a truncated `length`
 * answer, a model that wrote prose) → `{"_raw": "<arguments>"}`: `{}` would silently run the
 * tool without its arguments, while an unexpected `_raw` key fails the client's input
 * validation and the model sees its own text in the error, so the loop can recover.
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
