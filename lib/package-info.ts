/** Where gw is installed, and its version. */
import { existsSync, readFileSync } from 'node:fs';

/** The package root: two levels up from here in the sources, three in the compiled dist/. */
export const PACKAGE_ROOT: URL = new URL(existsSync(new URL('../package.json', import.meta.url)) ? '../' : '../../', import.meta.url);

/** The running gw's version (package.json). */
export const GW_VERSION: string = (JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version: string }).version;
