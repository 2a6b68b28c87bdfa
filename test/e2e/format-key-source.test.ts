/**
 * A third-party format declares where its clients send a gateway key, and that declaration
 * is all gw needs: auth reads the key there (and says where to send it), /openapi.json
 * describes it as a security scheme, and no log line shows it. The format here declares
 * its id, key sources and error body in `protocol`, the shape formats move to.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { tempPackage, uniqueName } from '../helpers/temp-plugin.ts';

/** A format whose clients send a key in `x-zz-key` or `?token=`, else as a bearer token; its route logs the headers it got. */
function keyedFormat(name: string): string {
  return `export default {
  type: 'format',
  protocol: {
    id: '${name}',
    label: '${name}',
    keyFrom: ['x-zz-key', '?token', 'bearer'],
    client: {},
    errorBody: (err) => JSON.stringify({ failure: err.message }),
  },
  setup({ route, log }) {
    route({
      method: 'GET',
      path: '/zz/hello',
      handler(ctx) {
        log.warn({ headers: ctx.headers }, 'zz headers');
        ctx.body = { query: ctx.querystring };
      },
    });
  },
};
`;
}

test('a format of its own key header: auth reads it, /openapi.json describes it, the log censors it', async (t) => {
  const name = uniqueName('zz-keyed');
  await tempPackage(t, name, keyedFormat(name));
  const gw = await startGateway(baseConfig(`[formats.${name}]\n`));
  t.teardown(() => gw.stop());

  const byHeader = await fetch(`${gw.url}/zz/hello?a=1`, { headers: { 'x-zz-key': KEY, 'x-goog-api-key': KEY } });
  t.is(byHeader.status, 200);
  const byQuery = await fetch(`${gw.url}/zz/hello?a=1&token=${KEY}`);
  t.deepEqual(await byQuery.json(), { query: 'a=1' }, 'the query key is gone before the handler sees the query');
  t.is((await fetch(`${gw.url}/zz/hello`, { headers: { authorization: `Bearer ${KEY}` } })).status, 200);
  const missing = await fetch(`${gw.url}/zz/hello`, { headers: { 'x-api-key': KEY } });
  t.is(missing.status, 401);
  t.deepEqual(await missing.json(), { failure: 'missing gateway key: send x-zz-key: <key> or ?token=<key> or Authorization: Bearer <key>' });
  t.is((await fetch(`${gw.url}/zz/hello`, { headers: { 'x-zz-key': 'sk-not-a-key-0123456789abcdef' } })).status, 401);

  const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as {
    components: { securitySchemes: Record<string, Record<string, string>> };
    paths: Record<string, Record<string, { security: unknown }>>;
  };
  const schemes = doc.components.securitySchemes;
  t.like(schemes['header.x-zz-key'], { type: 'apiKey', in: 'header', name: 'x-zz-key' });
  t.like(schemes['query.token'], { type: 'apiKey', in: 'query', name: 'token' });
  t.regex(schemes['header.x-zz-key']!.description!, new RegExp(name));
  t.like(schemes['header.x-goog-api-key'], { type: 'apiKey', in: 'header', name: 'x-goog-api-key' });
  t.deepEqual(doc.paths['/zz/hello']!.get!.security, [{ 'header.x-zz-key': [] }, { 'query.token': [] }, { bearer: [] }]);

  const line = gw.logs.find((l) => l.includes('zz headers'));
  t.truthy(line, gw.logs.join(''));
  const { headers } = JSON.parse(line!) as { headers: Record<string, string> };
  t.is(headers['x-zz-key'], '***');
  t.is(headers['x-goog-api-key'], '***', 'a built-in format key header is censored too');
  t.false(gw.logs.join('').includes(KEY), 'the key is in no log line');
});

test('a route may read a key only from a source some enabled format declares', async (t) => {
  const name = uniqueName('zz-undeclared');
  await tempPackage(
    t,
    name,
    `export default {
  type: 'format', protocol: { id: '${name}', label: '${name}', keyFrom: ['bearer'], errorBody: (err) => JSON.stringify({ error: err.message }), client: {} },
  setup({ route }) { route({ method: 'GET', path: '/zz/other', keyFrom: ['x-zz-other'], handler(ctx) { ctx.body = {}; } }); },
};
`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'gw-keyed-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const err = await t.throwsAsync(startGateway(baseConfig(`[formats.${name}]\n`), { dir }));
  t.is(
    err.message,
    `format '${name}' from the npm package gw-plugin-${name} failed in setup: Error: route GET /zz/other reads a key from 'x-zz-other', which no enabled format declares in keyFrom`,
  );
});
