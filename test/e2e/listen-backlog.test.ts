/**
 * gw's listening socket asks for a pending-connection queue of LISTEN_BACKLOG, not Node's
 * 511: 5,000 agent streams opened at once overflowed 511 (the headline bench saw the kernel
 * reset 146–255 of them). `ss` reports a listener's queue size in its Send-Q column.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import test from 'ava';
import { LISTEN_BACKLOG } from '../../server/server.ts';
import { baseConfig, startGateway } from '../helpers/gateway.ts';

test('the listener queues up to min(LISTEN_BACKLOG, somaxconn) pending connections', async (t) => {
  const gw = await startGateway(baseConfig());
  try {
    const port = Number(new URL(gw.url).port);
    const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim();
    // State Recv-Q Send-Q Local:Port Peer:Port — for a listener, Send-Q is the backlog
    const sendQ = Number(line.split(/\s+/)[2]);
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    t.is(sendQ, Math.min(LISTEN_BACKLOG, somaxconn), line);
    t.true(sendQ > 511, 'more than Node’s default backlog');
  } finally {
    await gw.stop();
  }
});
