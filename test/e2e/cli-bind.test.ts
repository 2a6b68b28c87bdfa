/**
 * `--bind` with an out-of-range port is refused by the CLI's argument check (one error, no
 * stack trace, nothing written), at both places the option is accepted.
 */
import test from 'ava';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

for (const args of [
  ['serve', '--bind', '127.0.0.1:99999'],
  ['--bind', '127.0.0.1:70000'],
]) {
  test(`gw ${args.join(' ')}: refused without a stack trace`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-bind-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.toml');
    const i = args.indexOf('--bind');
    const r = await runCli([...args.slice(0, i), '--config', file, ...args.slice(i)]);
    t.not(r.code, 0);
    t.regex(r.stderr, /--bind.*65535/);
    t.notRegex(r.stderr, /internal error|\n\s+at /);
    t.false(existsSync(file), 'refused before the first-run config is written');
  });
}
