/**
 * An expected failure outside a request: bad config, missing plugin, address in use,
 * store unreachable, a management command that failed. The CLI prints `gw: <message>` and
 * exits with `exitCode`; anything else is a bug and prints its stack.
 */
export class UserError extends Error {
  exitCode = 1;

  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'UserError';
  }
}
