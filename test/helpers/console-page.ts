/**
 * Steps the console's browser tests share: sign in (in a fresh context at a viewport), open a
 * page by its hash and wait for its heading, take a screenshot (into GW_SCREENSHOTS when set, else a temp dir made once per file).
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { browserFor } from './browser.ts';
import { ADMIN_TOKEN } from './gateway.ts';

/** Opens `${url}/ui/` and signs in with `token` (default the test gateways' admin token). */
export async function signIn(page: Page, url: string, token = ADMIN_TOKEN): Promise<void> {
  await page.goto(`${url}/ui/`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * A fresh browser context at `viewport` in `colorScheme`, signed in to the console at `url`
 * and on its Overview; undefined when chromium is missing outside CI (browserFor skips).
 */
export async function signedInPage(
  t: ExecutionContext,
  url: string,
  viewport: { width: number; height: number },
  colorScheme: 'light' | 'dark',
): Promise<Page | undefined> {
  const b = await browserFor(t, { viewport, colorScheme });
  if (!b) return undefined;
  const page = await b.context.newPage();
  await signIn(page, url);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return page;
}

/** Goes to the console page `#/<hash>` of the signed-in page and waits for its heading. */
export async function openPage(page: Page, hash: string, heading: string): Promise<void> {
  await page.goto(`${page.url().split('#')[0]}#/${hash}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

let shotDir: Promise<string> | undefined;

/** A full-page screenshot named `<name>.png` (`fullPage: false`: what the viewport shows, for drawers); its path is logged and answered. */
export async function screenshot(t: ExecutionContext, page: Page, name: string, { fullPage = true } = {}): Promise<string> {
  shotDir ??= process.env.GW_SCREENSHOTS
    ? mkdir(process.env.GW_SCREENSHOTS, { recursive: true }).then(() => process.env.GW_SCREENSHOTS!)
    : mkdtemp(join(tmpdir(), 'gw-ui-shots-'));
  const file = join(await shotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  t.log(`screenshot: ${file}`);
  return file;
}

/** The prices the console's browser tests charge at (chat and embeddings), ahead of their `[extensions.*]` sections. */
export const CONSOLE_PRICING = `[pricing."gpt-4o"]
input_per_mtok = 2.5
output_per_mtok = 10.0
[pricing."text-embedding-3-small"]
input_per_mtok = 0.02
output_per_mtok = 0.0
`;
