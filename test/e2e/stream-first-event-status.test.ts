import test from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { replySse, startUpstream } from '../helpers/upstream.ts';

// An upstream 4xx keeps its status (DESIGN.md "Errors") even when the vendor reports it as
// the first event of a 200 stream: nothing was sent yet, so the client gets a real 429.
const post = (url: string, model: string) =>
  fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }) });

test('a rate-limit error as the first stream event answers 429 (anthropic and gemini); an overload answers 502', async (t) => {
  const anthropic = await startUpstream((r, res) => {
    const type = r.json.model === 'claude-busy' ? 'overloaded_error' : 'rate_limit_error';
    return replySse(res, `event: error\ndata: {"type":"error","error":{"type":"${type}","message":"slow down"}}\n\n`);
  });
  const gemini = await startUpstream((_r, res) => replySse(res, 'data: {"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}\r\n\r\n'));
  const gw = await startGateway(baseConfig(`[providers.anthropic]\napi_key = "sk-a-0123456789"\nbase_url = "${anthropic.origin}"\nmax_retries = 0\nmodels = ["claude-x", "claude-busy"]\n[providers.gemini]\napi_key = "g-0123456789"\nbase_url = "${gemini.origin}"\nmax_retries = 0\nmodels = ["gemini-x"]\n`));
  t.teardown(async () => { await gw.stop(); await anthropic.close(); await gemini.close(); });
  const a = await post(gw.url, 'claude-x');
  t.is(a.status, 429);
  t.regex(((await a.json()) as any).error.message, /slow down/);
  const g = await post(gw.url, 'gemini-x');
  t.is(g.status, 429);
  t.regex(((await g.json()) as any).error.message, /quota/);
  const busy = await post(gw.url, 'claude-busy');
  t.is(busy.status, 502);
  t.is(((await busy.json()) as any).error.upstream_status, 529);
});
