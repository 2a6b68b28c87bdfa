/**
 * Upstream health (docs/mcp.md "Health"), with `[mcp] ping_interval_seconds` at 0.4 s: a killed
 * upstream is `down` within 3 intervals (its tools leave the catalog, the other server keeps
 * answering), and `up` again within one interval of coming back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { ADMIN_TOKEN, KEY, startGateway } from '../helpers/gateway.ts';
import { ENVELOPE, httpServer, keySection, mcpServers, rpc, waitUp } from '../helpers/mcp.ts';
import { startHttpMcp } from '../helpers/mcp-upstream.ts';

const INTERVAL_MS = 400;
/** Connecting takes a few requests (probe, initialize, lists): time beyond the interval it may add. */
const CONNECT_MS = 300;
/** Scheduling slack for a loaded 2-core runner (a timer firing late, the status poll's own round trip). */
const SLACK_MS = 300;

test('a killed upstream is down within 3 ping intervals and back within one after it restarts; the other server is unaffected', async (t) => {
  const web = await startHttpMcp({ name: 'web' });
  const alt = await startHttpMcp({ name: 'alt' });
  const gw = await startGateway(`listen = "127.0.0.1:0"
admin_token = "${ADMIN_TOKEN}"
${keySection('default', KEY, ['*'])}
${httpServer('web', web.url)}
${httpServer('alt', alt.url)}
[mcp]
ping_interval_seconds = ${INTERVAL_MS / 1000}
`);
  t.teardown(async () => {
    await gw.stop();
    await web.close();
    await alt.close();
  });
  await waitUp(gw, ['web', 'alt']);
  const stateOf = async (name: string) => (await mcpServers(gw)).find((s) => s.name === name);
  const tools = async () =>
    (
      (
        await rpc(
          gw,
          KEY,
          { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } },
          { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
        )
      ).json.result.tools as Array<{ name: string }>
    ).map((x) => x.name);

  await web.kill();
  const killed = Date.now();
  let down: any;
  while (!down && Date.now() - killed < 5 * INTERVAL_MS) {
    const s = await stateOf('web');
    if (s.state === 'down') down = s;
    else await sleep(20);
  }
  const tookDown = Date.now() - killed;
  t.truthy(down, 'web went down');
  t.true(tookDown <= 3 * INTERVAL_MS + SLACK_MS, `down after ${tookDown} ms`);
  t.log(`down ${tookDown} ms after the kill (${down.last_error})`);
  const during = await tools();
  t.false(during.some((n) => n.startsWith('web__')));
  t.true(during.includes('alt__echo'));
  t.is((await stateOf('alt')).state, 'up');

  // let it fail a few reconnections, then bring it back
  await sleep(2 * INTERVAL_MS);
  await web.restart();
  const restarted = Date.now();
  let up = false;
  while (!up && Date.now() - restarted < 5 * INTERVAL_MS) {
    up = (await stateOf('web')).state === 'up';
    if (!up) await sleep(20);
  }
  const tookUp = Date.now() - restarted;
  t.true(up);
  t.true(tookUp <= INTERVAL_MS + CONNECT_MS, `up after ${tookUp} ms`);
  t.log(`up ${tookUp} ms after the restart`);
  t.true((await tools()).includes('web__echo'));
});
