/**
 * `[extensions.guardrails]`: checks for secrets and personal data in prompts, answers, tool
 * calls and streams, in every client format, on the content view. docs/guardrails.md.
 *
 * The checks, the engine and the stream window are complete; what runs them on requests needs
 * three kernel seams this build does not have yet (onRequest edits honoured, `onAnswer`,
 * `onStream`), so setup refuses to start rather than let an operator believe a check enforces.
 */
import { defineExtension, UserError } from 'gw/plugin';
import { guardrailsSchema } from './config.ts';
import { Guardrails } from './guardrails.ts';

export default defineExtension({
  name: 'guardrails',
  configSchema: guardrailsSchema,
  gw: '^0.2.0',
  setup({ config }) {
    const guardrails = new Guardrails(config);
    throw new UserError(
      `extensions.guardrails: ${guardrails.checks.length} check(s) compiled, but this build of gw cannot run them on requests yet (it lacks the content hooks onAnswer and onStream); remove the section`,
    );
  },
});
