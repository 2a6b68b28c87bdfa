import test from 'ava';
import { EventEmitter } from 'node:events';
import { PendingRequests } from '../../server/pending.ts';

test('a request is pending until its response closed and its handling settled, in either order', async (t) => {
  const p = new PendingRequests();
  const res = new EventEmitter();
  let settle!: () => void;
  p.track(res, new Promise<void>((r) => (settle = r)));
  t.is(p.size, 1);
  res.emit('close'); // the client left: gw is still handling it
  await Promise.resolve();
  t.is(p.size, 1);
  const idle = p.idle(5_000);
  settle();
  t.true(await idle);
  t.is(p.size, 0);

  const res2 = new EventEmitter();
  p.track(res2, Promise.reject(new Error('handler failed')));
  await new Promise((r) => setImmediate(r));
  t.is(p.size, 1, 'settled by a rejection, the response still open');
  res2.emit('close');
  t.is(p.size, 0);
});

test('idle(ms) answers false after ms with requests still pending, and forgets its waiter', async (t) => {
  const p = new PendingRequests();
  const res = new EventEmitter();
  p.track(res, undefined);
  t.false(await p.idle(20));
  res.emit('close');
  t.is(p.size, 0);
  t.true(await p.idle(20));
});
