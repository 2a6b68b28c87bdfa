/**
 * Prompt-cache affinity across instances: two gw instances on one Redis route a
 * conversation's turns to the same member, whichever instance gets each turn.
 */
import test from 'ava';
import OpenAI from 'openai';
import { chatCompletion } from '../helpers/completion.ts';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { redisFor } from '../helpers/redis.ts';
import { replyJson, startUpstream, type MockUpstream } from '../helpers/upstream.ts';

test('two gw instances on one Redis send each conversation to one member, turns alternating between the instances', async (t) => {
  const r = await redisFor(t);
  if (!r) return;
  const a = await startUpstream((_q, res) => replyJson(res, 200, chatCompletion('ok')));
  const b = await startUpstream((_q, res) => replyJson(res, 200, chatCompletion('ok')));
  const member = (name: string, up: MockUpstream) => `[providers.${name}]\napi_key = "sk-${name}"\nbase_url = "${up.origin}/v1"\nmodels = ["m"]\n`;
  const toml = baseConfig(`${member('a', a)}${member('b', b)}[store]\nurl = "${r.url}"\n`);
  const gw1 = await startGateway(toml);
  const gw2 = await startGateway(toml);
  t.teardown(async () => {
    await gw1.stop();
    await gw2.stop();
    await a.close();
    await b.close();
    await r.stop();
  });
  const clients = [gw1, gw2].map((g) => new OpenAI({ baseURL: g.baseURL, apiKey: KEY, maxRetries: 0 }));
  const ask = async (gw: number, conv: number, n: number) => {
    const { response } = await clients[gw]!.chat.completions.create({
      model: 'm',
      prompt_cache_key: `session-${conv}`,
      messages: [{ role: 'user', content: `turn ${n}` }],
    }).withResponse();
    return response.headers.get('x-gw-provider')!;
  };
  // turn 0 of six conversations on instance 1 (round_robin: a b a b a b), then each later turn
  // on the other instance than the last, conversations in another order each time, so that
  // an instance's own round_robin alone would disagree
  const seen = Array.from({ length: 6 }, () => new Set<string>());
  for (let c = 0; c < 6; c++) seen[c]!.add(await ask(0, c, 0));
  const orders = [
    [1, 0, 3, 2, 5, 4],
    [5, 3, 1, 4, 2, 0],
    [0, 2, 4, 1, 3, 5],
  ];
  for (let n = 1; n <= orders.length; n++) for (const c of orders[n - 1]!) seen[c]!.add(await ask(n % 2, c, n));
  for (const s of seen) t.is(s.size, 1);
  t.deepEqual(new Set(seen.map((s) => [...s][0])), new Set(['a', 'b']));
});
