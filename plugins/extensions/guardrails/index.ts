/**
 * `[extensions.guardrails]`: checks for secrets and personal data in prompts, answers, tool
 * calls and streams, in every client format, on the content view (docs/guardrails.md):
 *
 * - onRequest: request checks over `rc.content().texts()`, masks written through the view (the
 *   kernel then sends the edited body upstream), a block refused with 400 `guardrail_blocked`
 *   before anything goes upstream;
 * - onAnswer: response checks over a whole answer, masks re-serialized once by the kernel, a
 *   block answered with the same error instead;
 * - onStream: the rolling window (window.ts) over every streamed answer, `stream: true` or not
 *   asked for; a block cuts the stream before the match's first byte.
 *
 * A request whose key has no check in scope costs a lookup per hook and nothing else.
 */
import { defineExtension, type GatewayError, type RequestContext } from 'gw/plugin';
import type { Check, Phase } from './checks.ts';
import { guardrailsSchema, keyGuardrailsProblem } from './config.ts';
import type { Verdict } from './engine.ts';
import { Guardrails } from './guardrails.ts';
import { GuardStep, recordOutcomes } from './record.ts';
import { GUARDRAIL_BLOCKED, HitCounter } from './report.ts';

const NAME = 'guardrails';
/** rc.state slot: the stream's step, recorded if the stream fails before its end. */
const STEP = Symbol('guardrails.step');

export default defineExtension({
  name: NAME,
  configSchema: guardrailsSchema,
  gw: '^0.2.0',
  keySettings: ['guardrails'],
  setup({ config, hooks, metrics, secrets, log, gateway }) {
    const guardrails = new Guardrails(config);
    const counter = new HitCounter();
    metrics.counter('gw_guardrail_hits_total', 'Matches guardrail checks found (blocked, masked or monitored), by check, phase and action', () =>
      counter.samples(),
    );
    if (guardrails.redactStored) secrets.redactStored(guardrails.storedDetector());
    const names = new Set(guardrails.checks.map((check) => check.name));
    hooks.onKeysChange.tap(NAME, (change) => {
      for (const name of change.names) {
        const problem = keyGuardrailsProblem(gateway.key(name)?.guardrails ?? [], names);
        if (problem !== undefined) log.warn(`key '${name}' sets ${problem}: the entry changes nothing`);
      }
    });
    if (guardrails.checks.length === 0) return;

    /** Runs `phase`'s checks of `checks` over `parts`; records the outcomes; a block is thrown as the client's 400. */
    const enforce = async (rc: RequestContext, phase: Phase, checks: readonly Check[], parts: Parameters<Guardrails['check']>[0]): Promise<void> => {
      const verdict: Verdict = await guardrails.check(parts, phase, checks, { key: rc.key?.name, model: rc.model });
      if (verdict.failures.length > 0) log.warn({ req: rc.id, phase, failures: verdict.failures }, 'guardrails: a webhook check gave no verdict');
      const header = recordOutcomes(rc, verdict.outcomes, counter);
      if (verdict.blocked !== undefined)
        throw GUARDRAIL_BLOCKED({ ...verdict.blocked, phase }, { headers: header === undefined ? undefined : { 'x-gw-guardrails': header } });
    };

    hooks.onRequest.tapPromise(NAME, async (rc) => {
      if (rc.operation !== 'generate') return undefined;
      const checks = guardrails.checksFor(rc.key);
      if (checks.length > 0 && guardrails.reads(checks, 'request')) await enforce(rc, 'request', checks, rc.content().texts());
      return undefined;
    });

    hooks.onAnswer.tapPromise(NAME, async (rc, answer) => {
      const checks = guardrails.checksFor(rc.key);
      if (checks.length > 0 && guardrails.reads(checks, 'response')) await enforce(rc, 'response', checks, answer.texts());
    });

    hooks.onStream.tap(NAME, (rc, steps) => {
      const window = guardrails.window(guardrails.checksFor(rc.key));
      if (window === undefined) return;
      const step = new GuardStep(window, rc, counter);
      rc.state.set(STEP, step);
      steps.push(step);
    });

    // a stream that failed or was left before its end: what its window found still counts
    hooks.onError.tap(NAME, (rc: RequestContext, _err: GatewayError) => {
      (rc.state.get(STEP) as GuardStep | undefined)?.close();
    });
  },
});
