/**
 * Headless Chromium for the console's browser tests: the Debian package (`/usr/bin/chromium`,
 * or GW_CHROMIUM) driven by playwright-core, with a fresh profile per test.
 *
 * Without chromium: in CI (`CI` set) the test fails with how to install it (.ci/run does);
 * elsewhere it is skipped with a logged reason.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.GW_CHROMIUM || '/usr/bin/chromium';

/** No sandbox (containers), no GPU, and nothing that talks to the network besides the page. */
export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const MISSING = `chromium is not installed at ${CHROMIUM}: install it (Debian/Ubuntu: apt-get install -y --no-install-recommends chromium; .ci/run does this in CI) or set GW_CHROMIUM`;

/** Whether the chromium binary is there. */
export function haveChromium(): boolean {
  return existsSync(CHROMIUM);
}

export interface Browser {
  context: BrowserContext;
  /** The profile directory (removed at teardown). */
  profile: string;
}

/**
 * A browser with a fresh profile, closed at the test's teardown; undefined when the test
 * should skip (no chromium outside CI: logged and passed). In CI a missing chromium throws.
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
  const profile = await mkdtemp(join(tmpdir(), 'gw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    colorScheme: opts.colorScheme ?? 'light',
    timeout: 30_000,
  });
  t.teardown(async () => {
    await context.close().catch(() => undefined);
    await rm(profile, { recursive: true, force: true });
  });
  return { context, profile };
}
