/**
 * Where the Debian chromium is and how gw's browser tests and screenshot scripts start it.
 * No ava here: the screenshot scripts (`npm run screenshot`) import it outside a test run.
 */
import { existsSync } from 'node:fs';

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

export const MISSING = `chromium is not installed at ${CHROMIUM}: install it (Debian/Ubuntu: apt-get install -y --no-install-recommends chromium; .ci/run does this in CI) or set GW_CHROMIUM`;

/** Whether the chromium binary is there. */
export function haveChromium(): boolean {
  return existsSync(CHROMIUM);
}
