import test from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { replyJson, startUpstream } from '../helpers/upstream.ts';

const completion = (model: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model,
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});

test('/v1/messages translated to a common-format fallback sends the fallback model upstream', async (t) => {
  const down = await startUpstream((_r, res) => replyJson(res, 500, { error: { message: 'down' } }));
  const up = await startUpstream((r, res) => replyJson(res, 200, completion(r.json.model)));
  const gw = await startGateway(
    baseConfig(
      `[providers.down]\napi_key = "sk-down"\nbase_url = "${down.origin}/v1"\nmax_retries = 0\nmodels = ["big"]\n[providers.up]\napi_key = "sk-up"\nbase_url = "${up.origin}/v1"\nmodels = ["small"]\n[fallbacks]\nbig = ["small"]\n`,
    ),
  );
  t.teardown(async () => {
    await gw.stop();
    await down.close();
    await up.close();
  });
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'big', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.is(res.status, 200);
  t.is(res.headers.get('x-gw-provider'), 'up');
  t.is(down.received[0]!.json.model, 'big');
  t.is(up.received.length, 1);
  t.is(up.received[0]!.json.model, 'small', 'the fallback upstream got the fallback model');
});
