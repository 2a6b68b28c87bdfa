/**
 * What guardrails tell the outside: the block error (400 `guardrail_blocked`, naming the
 * check, the phase and the entity type, never the text), the `x-gw-guardrails` header and the
 * hits counter's samples.
 */
import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
import { GUARDRAIL_BLOCKED, guardrailsHeader, HitCounter } from '../../plugins/extensions/guardrails/report.ts';

test('a block is a 400 guardrail_blocked naming the check, the phase and the entity type', (t) => {
  const err = GUARDRAIL_BLOCKED({ check: 'secrets', entity: 'aws-access-key', phase: 'request' });
  t.true(err instanceof GatewayError);
  t.is(err.status, 400);
  t.is(err.code, 'guardrail_blocked');
  t.is(err.message, "blocked by guardrail 'secrets': aws-access-key found in the request");
  t.true(GUARDRAIL_BLOCKED.is(err));
  t.is(
    GUARDRAIL_BLOCKED({ check: 'hook', entity: 'webhook_unavailable', phase: 'response' }).message,
    "blocked by guardrail 'hook': its checker did not clear the response",
  );
});

test('x-gw-guardrails lists each check with an outcome once; none: no header', (t) => {
  const outcome = (check: string, entity: string) => ({ check, phase: 'request' as const, action: 'mask' as const, entity, count: 1 });
  t.is(guardrailsHeader([]), undefined);
  t.is(guardrailsHeader([outcome('secrets', 'github-token'), outcome('pii', 'email'), outcome('secrets', 'private-key')]), 'secrets, pii');
});

test('hits add up per check, phase and action', (t) => {
  const hits = new HitCounter();
  hits.add([
    { check: 'secrets', phase: 'request', action: 'mask', entity: 'github-token', count: 2 },
    { check: 'secrets', phase: 'request', action: 'mask', entity: 'private-key', count: 1 },
  ]);
  hits.add([{ check: 'secrets', phase: 'response', action: 'block', entity: 'github-token', count: 1 }]);
  t.deepEqual(hits.samples(), [
    { labels: { check: 'secrets', phase: 'request', action: 'mask' }, value: 3 },
    { labels: { check: 'secrets', phase: 'response', action: 'block' }, value: 1 },
  ]);
});
