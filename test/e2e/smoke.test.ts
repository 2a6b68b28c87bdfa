import test from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { fixture, replySse, startUpstream } from '../helpers/upstream.ts';

test('openai client streams through gw from a real-socket upstream', async (t) => {
  const up = await startUpstream((_req, res) => replySse(res, fixture('openai/openai-node/chat.stream.include-usage.sse'), { delayMs: 5 }));
  const gw = await startGateway(baseConfig(`[providers.up]\napi_key = "sk-up"\nbase_url = "${up.origin}/v1"\nmodels = ["gpt-4o-mini"]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY });
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
  let text = '';
  for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
  t.true(text.length > 0);
  t.is(up.received[0]!.json.stream_options.include_usage, true);
  t.is(up.received[0]!.headers.authorization, 'Bearer sk-up');
});
