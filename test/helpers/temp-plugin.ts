/**
 * Throwaway third-party plugins: an npm package `gw-plugin-<name>` written into
 * node_modules for one test, so the plugin loader finds it as it finds an installed one.
 */
import type { ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** Creates the package `gw-plugin-<name>` with `indexJs` as its module; removed at the test's teardown. */
export async function tempPackage(t: ExecutionContext, name: string, indexJs: string): Promise<void> {
  const dir = join(NODE_MODULES, `gw-plugin-${name}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: `gw-plugin-${name}`, version: '0.0.0', type: 'module', exports: './index.js' }));
  await writeFile(join(dir, 'index.js'), indexJs);
  t.teardown(() => rm(dir, { recursive: true, force: true }));
}

/**
 * A package name no other test uses: `<prefix>-<8 hex digits>`. Not `process.pid`: ava runs
 * test files in worker threads of one process, so two files' packages would share a folder.
 */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}
