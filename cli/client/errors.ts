/**
 * An expected failure of a management command: cli/main.ts prints `gw: <message>` on one
 * line and exits with `exitCode`.
 */
import { UserError } from '../../lib/user-error.ts';

export class CliError extends UserError {
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
