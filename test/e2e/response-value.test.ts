/**
 * onResponse's `value`: the answer as an object when gw parsed it anyway, so a tap (the otel
 * extension reads the response id, model and finish reasons) need not parse the body again.
 * A native answer (Messages, Gemini) hands its format's parse; a common-format answer sent as the upstream's
 * bytes hands the completion the kernel read; an answer a translation built has none.
 */
import test from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { tempPackage, uniqueName } from '../helpers/temp-plugin.ts';
import { fixture, replyJson, startUpstream } from '../helpers/upstream.ts';

interface Seen {
  route: string;
  model: string;
  hasValue: boolean;
  same: boolean;
}

test("onResponse's value is the sent body parsed when gw had it parsed, undefined when a translation built the body", async (t) => {
  const name = uniqueName('zz-value');
  const slot = `__gwValueSeen_${process.pid}`;
  await tempPackage(
    t,
    name,
    `import { defineExtension } from 'gw/plugin';
import { z } from 'zod';
import { isDeepStrictEqual } from 'node:util';
const seen = (globalThis[${JSON.stringify(slot)}] = []);
export default defineExtension({
  name: ${JSON.stringify(name)},
  configSchema: z.object({}),
  setup({ hooks }) {
    hooks.onResponse.tap('value', (rc, info) => {
      seen.push({ route: rc.route, model: rc.model, hasValue: info.value !== undefined, same: info.value === undefined || isDeepStrictEqual(info.value, JSON.parse(info.body)) });
    });
  },
});
`,
  );
  const up = await startUpstream((req, res) => {
    if (req.url.startsWith('/v1/messages')) return void replyJson(res, 200, JSON.parse(fixture('anthropic/vercel-ai/anthropic-text.json')));
    if (req.url.includes(':generateContent')) return void replyJson(res, 200, JSON.parse(fixture('gemini/vercel-ai/google-text.json')));
    return void replyJson(res, 200, JSON.parse(fixture('openai/spec-examples/chat.default.response.json')));
  });
  const gw = await startGateway(
    baseConfig(`[providers.claude]\nkind = "anthropic"\napi_key = "sk-a-0123456789"\nbase_url = "${up.origin}"\nmodels = ["claude-x"]\n
[providers.oa]\nkind = "openai"\napi_key = "sk-o-0123456789"\nbase_url = "${up.origin}/v1"\nmodels = ["gpt-x"]\n
[providers.gem]\nkind = "gemini"\napi_key = "gk-0123456789"\nbase_url = "${up.origin}"\nmodels = ["gem-x"]\n
[extensions.${name}]\n`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
    delete (globalThis as Record<string, unknown>)[slot];
  });
  const post = (path: string, body: unknown) =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const msg = { max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };
  t.is((await post('/v1/chat/completions', { model: 'gpt-x', messages: msg.messages })).status, 200);
  t.is((await post('/v1/messages', { model: 'claude-x', ...msg })).status, 200);
  t.is((await post('/v1/messages', { model: 'gpt-x', ...msg })).status, 200);
  t.is((await post('/v1beta/models/gem-x:generateContent', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] })).status, 200);
  const seen = (globalThis as Record<string, unknown>)[slot] as Seen[];
  t.deepEqual(seen, [
    { route: 'chat', model: 'gpt-x', hasValue: true, same: true },
    { route: 'messages', model: 'claude-x', hasValue: true, same: true },
    { route: 'messages', model: 'gpt-x', hasValue: false, same: true },
    { route: 'gemini', model: 'gem-x', hasValue: true, same: true },
  ]);
});
