/**
 * The gw command: `gw [--config <path>]` and `gw serve` start the gateway; the other
 * commands are the management client (lazily imported, so serving loads none of them).
 * One error boundary: expected failures print one line and exit non-zero; bugs print a stack.
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { UserError } from '../lib/user-error.ts';
import { registerManagementCommands } from './commands/register.ts';
import { registerCassetteCommands } from './commands/cassette-register.ts';

/** `-v` counts: -v info, -vv debug, -vvv trace. */
/** `--record <path>`: the recorder extension on, writing to `path` (relative to the working directory). */
const RECORD = ['--record <path>', 'record every upstream exchange to this cassette (.jsonl), as [extensions.recorder] path does'] as const;

const VERBOSE = ['-v, --verbose', 'log more: -v info, -vv debug, -vvv trace (else LOG_LEVEL)', (_v: string, prev: number) => prev + 1, 0] as const;

const program = new Command('gw')
  .description('gw — an LLM gateway: one OpenAI-compatible endpoint for many model vendors')
  .option(...VERBOSE)
  .option('--config <path>', 'config file to serve (created on first run)')
  .option('--bind <host:port>', 'address to listen on (overrides listen in the file)', parseBind)
  .option('--workers <n>', 'worker processes on one listening address (more than 1 needs [store] url = "redis://…")', parseWorkers)
  .option(...RECORD)
  .showHelpAfterError()
  // without this, commander lets the program's --config/--bind swallow the ones given after
  // `serve`, which then serves ./gateway.toml on its listen address
  .enablePositionalOptions()
  .exitOverride();

program.action(async () => {
  const o = program.opts<{ verbose: number; config?: string; bind?: string; workers?: number; record?: string }>();
  const { runServe } = await import('./serve.ts');
  await runServe({ config: o.config ?? 'gateway.toml', bind: o.bind, verbosity: o.verbose, workers: o.workers, record: o.record });
});

program
  .command('serve')
  .description('start the gateway')
  .option('--config <path>', 'config file (created on first run)', 'gateway.toml')
  .option('--bind <host:port>', 'address to listen on (overrides listen in the file)', parseBind)
  .option('--workers <n>', 'worker processes on one listening address (more than 1 needs [store] url = "redis://…")', parseWorkers)
  .option(...RECORD)
  // also after the subcommand: `npx gw -v …` would give -v to npx itself (it prints npm's version)
  .option(...VERBOSE)
  .action(async (o: { config: string; bind?: string; workers?: number; verbose: number; record?: string }) => {
    const { runServe } = await import('./serve.ts');
    const record = o.record ?? program.opts<{ record?: string }>().record;
    await runServe({ config: o.config, bind: o.bind, verbosity: Math.max(o.verbose, program.opts<{ verbose: number }>().verbose), workers: o.workers, record });
  });

registerManagementCommands(program);
registerCassetteCommands(program);

/** `host:port` with a port 0-65535 (else the server would throw an internal error later). */
function parseBind(v: string): string {
  const m = /^.+:(\d{1,5})$/.exec(v);
  if (!m || Number(m[1]) > 65535) throw new InvalidArgumentError('expected <host>:<port> with a port 0-65535, e.g. 127.0.0.1:8080');
  return v;
}

function parseWorkers(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new InvalidArgumentError('expected a whole number of worker processes, 1 or more');
  return n;
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  const e = err as Error;
  // expected failures (config, plugin, address in use, store, a failed management call): one line
  if (e instanceof UserError) {
    process.stderr.write(`gw: ${e.message}\n`);
    process.exit(e.exitCode);
  }
  process.stderr.write(`gw: internal error: ${e.stack ?? e}\n`);
  process.exit(70);
}
