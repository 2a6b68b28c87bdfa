/**
 * Priming a stream's first item (lib/resilience/prime.ts): a first item that is a failure
 * leaves no wait timer behind (it held the process and the stream's memory for 15 s).
 */
import test from 'ava';
import { primeFirst } from '../../lib/resilience/prime.ts';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

test.serial('a first item that fails rejects at once and leaves no timer behind', async (t) => {
  const before = timers();
  async function* failing(): AsyncGenerator<string> {
    await Promise.resolve();
    if (timers() >= 0) throw new Error('malformed first event');
    yield 'never';
  }
  await t.throwsAsync(primeFirst(failing(), 60_000), { message: 'malformed first event' });
  t.is(timers(), before);
});

test.serial('a first item that comes in time is primed, and its timer is gone too', async (t) => {
  const before = timers();
  async function* two(): AsyncGenerator<string> {
    yield 'a';
    yield 'b';
  }
  const p = await primeFirst(two(), 60_000);
  t.true(p.ready);
  t.is(p.first, 'a');
  t.is(timers(), before);
  const got: string[] = [];
  for await (const x of p.items) got.push(x);
  t.deepEqual(got, ['a', 'b']);
});
