import test from 'ava';
import { dispatch } from '../../core/dispatch.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Provider } from '../../lib/provider.ts';
import { Member } from '../../lib/resilience/member.ts';
import { classify } from '../../lib/resilience/retry.ts';
import { Group } from '../../lib/resilience/strategy.ts';
import type { RoutingTable } from '../../core/routing.ts';

const provider = {
  name: 'p',
  kind: 'openai',
  models: ['m'],
  chat: async () => {
    throw new Error('unused');
  },
} as unknown as Provider;
const table = {} as RoutingTable;

/** A one-provider group whose circuit opens after one failure and half-opens after 20 ms. */
async function halfOpen(): Promise<{ group: Group; member: Member }> {
  const member = new Member(provider, { maxRetries: 0, weight: 1 }, { failures: 1, cooldownMs: 20 });
  const group = new Group([member], 'round_robin');
  await t0Fail(group);
  await new Promise((r) => setTimeout(r, 30));
  return { group, member };
}

async function t0Fail(group: Group): Promise<void> {
  await dispatch(table, { model: 'm', group, fallbacks: [] }, new AbortController().signal, async () => {
    throw new GatewayError(502, 'down', { upstreamStatus: 503 });
  }).catch(() => undefined);
}

test('a half-open probe whose client went away gives the probe back', async (t) => {
  const { group, member } = await halfOpen();
  const ac = new AbortController();
  await t.throwsAsync(
    dispatch(table, { model: 'm', group, fallbacks: [] }, ac.signal, async () => {
      ac.abort(new GatewayError(499, 'client closed the connection'));
      throw ac.signal.reason;
    }),
  );
  const ok = await dispatch(table, { model: 'm', group, fallbacks: [] }, new AbortController().signal, async () => 'ok');
  t.is(ok.value, 'ok', 'the next request may probe the provider');
  t.is(member.breaker.state, 'closed');
});

test('a half-open probe refused before any upstream call (a gw-side 400) gives the probe back', async (t) => {
  const { group } = await halfOpen();
  await t.throwsAsync(
    dispatch(table, { model: 'm', group, fallbacks: [] }, new AbortController().signal, async () => {
      throw new GatewayError(400, 'no embeddings endpoint', { code: 'embeddings_unsupported' });
    }),
    { message: /no embeddings/ },
  );
  const ok = await dispatch(table, { model: 'm', group, fallbacks: [] }, new AbortController().signal, async () => 'ok');
  t.is(ok.value, 'ok');
});

test('a 5xx or 408 with a retry-after longer than 5 s moves on instead of waiting', (t) => {
  t.is(classify(new GatewayError(502, 'x', { upstreamStatus: 503, headers: { 'retry-after': '60' } })), 'next');
  t.is(classify(new GatewayError(408, 'x', { upstreamStatus: 408, headers: { 'retry-after': '30' } })), 'next');
  t.is(classify(new GatewayError(502, 'x', { upstreamStatus: 503, headers: { 'retry-after': '2' } })), 'retry');
  t.is(classify(new GatewayError(502, 'x', { upstreamStatus: 500 })), 'retry');
});
