/**
 * Foundation: /openapi.json, /docs (Swagger UI served from swagger-ui-dist, no CDN) and /health.
 */
import test from 'ava';
import { baseConfig, startGateway } from '../helpers/gateway.ts';

test('/openapi.json, /docs with its assets, /health: no key needed', async (t) => {
  const gw = await startGateway(baseConfig('[providers.mock]\nmodels = ["mock-1"]\n'));
  t.teardown(() => gw.stop());

  const o = await fetch(`${gw.url}/openapi.json`);
  t.is(o.status, 200);
  t.regex(o.headers.get('content-type') ?? '', /application\/json/);
  const doc = (await o.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
  t.regex(doc.openapi, /^3\.1/);
  for (const p of ['/v1/chat/completions', '/v1/embeddings', '/v1/messages']) t.truthy(doc.paths[p]?.post, p);
  t.truthy(doc.paths['/v1/models']?.get);

  const d = await fetch(`${gw.url}/docs`);
  t.is(d.status, 200);
  t.regex(d.headers.get('content-type') ?? '', /text\/html/);
  const html = await d.text();
  t.true(html.includes('/openapi.json'));
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  t.true(assets.some((a) => a.endsWith('.js')));
  t.true(assets.some((a) => a.endsWith('.css')));
  for (const a of assets) {
    t.false(/^https?:/.test(a), `asset ${a} must be served by gw, not a CDN`);
    const r = await fetch(new URL(a, `${gw.url}/docs`));
    t.is(r.status, 200, a);
    t.regex(r.headers.get('content-type') ?? '', a.endsWith('.js') ? /javascript/ : /text\/css/);
    t.true((await r.arrayBuffer()).byteLength > 10_000, a);
  }
  t.is((await fetch(`${gw.url}/docs/../package.json`)).status, 404);
  t.is((await fetch(`${gw.url}/docs/index.html`)).status, 404);

  const h = await fetch(`${gw.url}/health`);
  t.is(h.status, 200);
  t.deepEqual(await h.json(), { status: 'ok' });
});

test('-vv logs which provider answered; -vvv adds the request body; neither logs a key', async (t) => {
  const { baseConfig, KEY, startGateway } = await import('../helpers/gateway.ts');
  const { replyJson, startUpstream } = await import('../helpers/upstream.ts');
  const up = await startUpstream((_r, res) =>
    replyJson(res, 200, {
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    }),
  );
  const toml = baseConfig(`[providers.up]\napi_key = "sk-upstream-secret-0123456789"\nbase_url = "${up.origin}/v1"\nmodels = ["m"]\n`);
  const debug = await startGateway(toml, { level: 'debug' });
  const trace = await startGateway(toml, { level: 'trace' });
  t.teardown(async () => {
    await debug.stop();
    await trace.stop();
    await up.close();
  });
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'a distinctive question' }] });
  for (const gw of [debug, trace]) {
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body,
    });
    t.is(r.status, 200);
  }
  const d = debug.logs.join('');
  t.regex(d, /"msg":"dispatched"/);
  t.regex(d, /"provider":"up"/);
  t.false(d.includes('a distinctive question'), 'no message content below trace');
  const tr = trace.logs.join('');
  t.true(tr.includes('a distinctive question'));
  for (const secret of [KEY, 'sk-upstream-secret-0123456789']) t.false((d + tr).includes(secret));
});
