/**
 * Translation warnings: one line per kind of loss, naming where it first happened and how
 * often (a long agent history would otherwise repeat the same line hundreds of times).
 */
export class Warnings {
  readonly #seen = new Map<string, { at: string; n: number }>();

  /** Records `what` (a kind of loss, e.g. "reasoning.summary dropped: …") at the field path `at`. */
  add(what: string, at: string): void {
    const seen = this.#seen.get(what);
    if (seen) seen.n++;
    else this.#seen.set(what, { at, n: 1 });
  }

  /** `"<what> (at <first path>[ and <n> more])"`, in first-seen order. */
  list(): string[] {
    return [...this.#seen].map(([what, { at, n }]) => `${what} (at ${at}${n > 1 ? ` and ${n - 1} more` : ''})`);
  }
}
