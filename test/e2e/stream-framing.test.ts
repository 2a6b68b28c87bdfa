import test from 'ava';
import OpenAI from 'openai';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { replySse, startUpstream } from '../helpers/upstream.ts';

test('a chunk an upstream spreads over several data: lines reaches the openai client intact', async (t) => {
  const chunk = (content: string | null, finish: string | null = null) =>
    JSON.stringify(
      {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }],
      },
      null,
      1,
    );
  // pretty-printed JSON: every line becomes its own data: line (legal SSE; some self-hosted servers do this)
  const event = (json: string) =>
    `${json
      .split('\n')
      .map((l) => `data: ${l}`)
      .join('\n')}\n\n`;
  const up = await startUpstream((_r, res) => replySse(res, `${event(chunk('multi ')) + event(chunk('line')) + event(chunk(null, 'stop'))}data: [DONE]\n\n`));
  const gw = await startGateway(baseConfig(`[providers.up]\napi_key = "sk-up-0123456789"\nbase_url = "${up.origin}/v1"\nmodels = ["m"]\n`));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: KEY, maxRetries: 0 });
  const s = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
  let text = '';
  for await (const c of s) text += c.choices[0]?.delta?.content ?? '';
  t.is(text, 'multi line');
});
