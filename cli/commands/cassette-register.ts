/**
 * `gw cassette show|redact` and `gw replay check`, declared for commander; each action
 * imports its module only when it runs (cassette.ts). Local file tools: no gateway needed.
 */
import type { Command } from 'commander';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds `cassette` and `replay` to `program`. */
export function registerCassetteCommands(program: Command): void {
  const cassette = program.command('cassette').description('inspect and redact record-and-replay cassettes (docs/record-replay.md)');
  cassette
    .command('show <path>')
    .description('a table of the recordings in a cassette file or folder: route, model, answer, tokens, cost, age')
    .option('--json', 'print the entries as JSON')
    .action(async (path: string, o) => (await import('./cassette.ts')).show(path, o));
  cassette
    .command('redact <path>')
    .description('run the scrubbers again over a cassette, in place: key formats, the given secrets, the header allow-list; hashes follow the bodies')
    .option('--config <file>', "also scrub the secrets of this config: providers' api_keys, gateway keys, the admin token")
    .option('--secret <value>', 'also scrub this exact value; repeat for more', collect)
    .option('--header <name>', "keep this header beside the built-in allow-list (as the recorder's `headers`); repeat for more", collect)
    .action(async (path: string, o) => (await import('./cassette.ts')).redact(path, o));
  const replay = program.command('replay').description('record-and-replay runs (docs/record-replay.md)');
  replay
    .command('check <cassette>')
    .description("list the recordings no request asked for in the last run of the config's replay providers (exit 1 when there are some): a stale cassette")
    .requiredOption('--config <file>', 'the config whose replay providers ran (its store holds what they served)')
    .option('--json', 'print the unused entries as JSON')
    .action(async (path: string, o) => (await import('./cassette.ts')).check(path, o));
}
