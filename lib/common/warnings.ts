/**
 * What a translation dropped or approximated: one line per kind of loss, where it first happened
 * and how often, so a long agent history does not repeat a line hundreds of times. Logged at debug.
 */
export class Warnings {
  readonly #seen = new Map<string, { at: string; n: number }>();

  /** Records `what` (the kind of loss, e.g. "reasoning.summary dropped") found at `at` (a field path like `contents[2].parts[0]`). */
  add(what: string, at: string): void {
    const seen = this.#seen.get(what);
    if (seen) seen.n++;
    else this.#seen.set(what, { at, n: 1 });
  }

  /** `"<what> (at <first path>[ and N more])"`, in first-seen order. */
  list(): string[] {
    return [...this.#seen].map(([what, { at, n }]) => `${what} (at ${at}${n > 1 ? ` and ${n - 1} more` : ''})`);
  }
}
