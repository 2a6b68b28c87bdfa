/**
 * A gateway for the console's layout and drill-down browser tests, with traffic that gives
 * every page something to show: two providers (`up`, and `flaky-eu-west-1` behind a long base
 * URL, which fails), three keys (`default` and `second` tagged `team`, `untagged` not), answered
 * requests, a stream, a 404, a 400 and a 502, and one request with a known id.
 */
import type { ExecutionContext } from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONSOLE_PRICING } from './console-page.ts';
import { admin, client, gatewayWith, HI, KEY2, openaiUpstream, post } from './ext-helpers.ts';
import type { TestGateway } from './gateway.ts';

export const KEY3 = 'sk-test-key-untagged-0123456789abcd';
/** The id of one request of key `second`, to search for. */
export const KNOWN_ID = 'drill-me-0042';
/** Served by `flaky-eu-west-1`, which answers 500 (no retries): a 502 `upstream_error`. */
export const FLAKY_MODEL = 'o4-mini-2025-04-16';

/** Requests each key made: [answered, failed]. */
export const TRAFFIC = { default: [3, 2], second: [2, 1], untagged: [1, 0] } as const;

/** Starts the gateway (stopped at teardown) and sends the traffic; resolves once the request log holds all of it. */
export async function consoleWithTraffic(t: ExecutionContext): Promise<TestGateway> {
  const up = await openaiUpstream({ usageOf: () => ({ prompt_tokens: 12, completion_tokens: 5 }) });
  const flaky = await openaiUpstream();
  flaky.handle((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"flaky upstream"}}');
  });
  t.teardown(() => flaky.close());
  const gw = await gatewayWith(
    t,
    up,
    `[providers.flaky-eu-west-1]
api_key = "sk-x"
base_url = "${flaky.origin}/proxy/eu-west-1/openai-compatible/v1"
max_retries = 0
models = ["${FLAKY_MODEL}"]
[pricing."${FLAKY_MODEL}"]
input_per_mtok = 1.1
output_per_mtok = 4.4
[keys.default.tags]
team = "search"
[keys.second.tags]
team = "ml"
[keys.untagged]
key = "${KEY3}"
${CONSOLE_PRICING}
[extensions.usage]
[extensions.budget]
default_budget = 100.0
[extensions.request_log]
`,
  );
  for (let i = 0; i < 2; i++) await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI });
  const s = await client(gw).chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true });
  for await (const _ of s) {
    /* drain */
  }
  t.is((await post(gw, '/v1/chat/completions', { model: 'no-such-model', messages: HI })).status, 404);
  t.is((await post(gw, '/v1/chat/completions', { model: 'gpt-4o', messages: 'not a list' })).status, 400);
  await client(gw, KEY2).chat.completions.create({ model: 'gpt-4o', messages: HI });
  const known = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY2}`, 'content-type': 'application/json', 'x-request-id': KNOWN_ID },
    body: JSON.stringify({ model: 'gpt-4o', messages: HI }),
  });
  t.is(known.status, 200);
  t.is((await post(gw, '/v1/chat/completions', { model: FLAKY_MODEL, messages: HI }, KEY2)).status, 502);
  await client(gw, KEY3).chat.completions.create({ model: 'gpt-4o', messages: HI });
  const total = Object.values(TRAFFIC).reduce((n, [ok, failed]) => n + ok + failed, 0);
  for (let i = 0; i < 200; i++) {
    if ((await admin(gw, 'GET', '/v1/requests?limit=1000')).body.length >= total) break;
    await sleep(25);
  }
  return gw;
}
