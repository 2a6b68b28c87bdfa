/**
 * Headless Chromium for the console's browser tests: the Debian package (`/usr/bin/chromium`,
 * or GW_CHROMIUM) driven by playwright-core.
 *
 * One browser process per test file, started on first use and closed after the file's last
 * test; each test gets its own context (cookies, storage and cache as fresh as a new
 * profile). A browser per test meant a file's concurrent tests started five Chromiums at once,
 * which on a loaded 2-core runner took past the launch timeout. Launches are also taken one at
 * a time across the files ava runs together (a lock directory), for the same reason.
 *
 * Without chromium: in CI (`CI` set) the test fails with how to install it (.ci/run does);
 * elsewhere it is skipped with a logged reason.
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { type Browser as PwBrowser, type BrowserContext, chromium } from 'playwright-core';
import { CHROMIUM, FLAGS, haveChromium, MISSING } from './chromium.ts';

export { CHROMIUM, FLAGS, haveChromium } from './chromium.ts';

/** A launch on an idle box takes about a second; a loaded runner has been seen past 30 s. */
const LAUNCH_TIMEOUT_MS = 120_000;
const LOCK = join(tmpdir(), 'gw-chromium-launch.lock');

let shared: Promise<PwBrowser> | undefined;

test.after.always('close the shared chromium', async () => {
  const b = shared;
  shared = undefined;
  if (b) await (await b.catch(() => undefined))?.close().catch(() => undefined);
});

/** One launch at a time across ava's workers and processes; a lock older than the launch timeout is stale. */
async function withLaunchLock<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LAUNCH_TIMEOUT_MS;
  for (;;) {
    try {
      await mkdir(LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await stat(LOCK).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > LAUNCH_TIMEOUT_MS) await rm(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`waited ${LAUNCH_TIMEOUT_MS} ms for ${LOCK}`);
      else await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
}

function browser(): Promise<PwBrowser> {
  shared ??= withLaunchLock(() => chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: LAUNCH_TIMEOUT_MS }));
  return shared;
}

export interface Browser {
  /** A context of its own: closed at the test's teardown. */
  context: BrowserContext;
}

/**
 * A fresh browser context, closed at the test's teardown; undefined when the test should
 * skip (no chromium outside CI: logged and passed). In CI a missing chromium throws.
 */
export async function browserFor(
  t: ExecutionContext,
  opts: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {},
): Promise<Browser | undefined> {
  if (!haveChromium()) {
    if (process.env.CI) throw new Error(MISSING);
    t.log(`skipped: ${MISSING}`);
    t.pass();
    return undefined;
  }
  const context = await (await browser()).newContext({
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    colorScheme: opts.colorScheme ?? 'light',
  });
  t.teardown(() => context.close().catch(() => undefined));
  return { context };
}
