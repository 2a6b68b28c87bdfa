/**
 * The management client's commands, declared for commander. Each action imports its
 * module only when it runs, so `gw serve` loads none of them (np's lazy-command idea).
 * Every command talks to a running gw at GW_URL with GW_ADMIN_TOKEN.
 */
import { InvalidArgumentError, type Command } from 'commander';
import * as flags from '../client/key-flags.ts';

const ENV_HELP = `
Environment:
  GW_URL          gateway address (default http://127.0.0.1:8080)
  GW_ADMIN_TOKEN  the admin_token of the gateway config`;

const JSON_FLAG = ['--json', 'print JSON instead of a table'] as const;

/** A whole number ≥ 1 for `--limit`/`--interval`. */
function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of 1 or more');
  return n;
}

/** `--models a,b` → ['a', 'b']. */
function modelList(v: string): string[] {
  const list = v
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (list.length === 0) throw new InvalidArgumentError('expected comma-separated model ids, e.g. gpt-4o,gpt-4o-mini');
  return list;
}

/** The virtual key settings as flags (`gw keys create` and `update`). */
function keySettingFlags(c: Command): Command {
  return c
    .option('--models <patterns>', "models the key may call, comma-separated; * matches anything (e.g. 'gpt-4o*,claude-*'; default: all)", flags.modelPatterns)
    .option('--rpm <n>', 'requests per minute (overrides [extensions.rate_limit])', flags.positiveInt)
    .option('--tpm <n>', 'tokens per minute (overrides [extensions.rate_limit])', flags.positiveInt)
    .option('--budget <usd>', 'budget in USD (overrides [extensions.budget])', flags.usdAmount)
    .option('--period <period>', 'budget period: daily, weekly, monthly (UTC calendar; weeks from Monday) or lifetime', flags.period)
    .option('--expires <when>', 'expiry: a date (2027-01-01, 00:00 UTC) or an RFC 3339 date-time')
    .option('--tag <name=value>', 'a tag for grouping usage and spend; repeat for more', flags.tag)
    .option('--max-parallel <n>', 'requests in flight at once (429 beyond it)', flags.positiveInt)
    .option(
      '--mcp-tools <patterns>',
      "MCP tools the key may see and call, comma-separated full names; * matches anything (e.g. 'fs__*,github__search_*'; default: none)",
      flags.toolPatterns,
    )
    .option('--tool-calls <n>', 'MCP tool calls per minute (overrides [extensions.rate_limit])', flags.positiveInt)
    .option(
      '--guardrails <checks>',
      "guardrail checks to add to the key, comma-separated; -name opts it out of one (e.g. 'pii_strict,-secrets'; docs/guardrails.md)",
      flags.guardrailNames,
    );
}

/** `--header name=value`, `--env NAME=value`: repeatable, into one map. */
function pair(v: string, prev: Record<string, string> = {}): Record<string, string> {
  const i = v.indexOf('=');
  if (i <= 0) throw new InvalidArgumentError(`expected name=value, got '${v}'`);
  return { ...prev, [v.slice(0, i).trim()]: v.slice(i + 1) };
}

/** `--arg x`: repeatable, in order. */
function repeat(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

/** `gw mcp list|show|add|remove`: the MCP servers (docs/mcp.md). */
function registerMcpCommands(program: Command): void {
  const mcp = program.command('mcp').description('list, add and remove MCP servers behind /mcp').addHelpText('after', ENV_HELP);
  mcp
    .command('list')
    .description('MCP servers with their state, tools and the last 5 minutes (calls/min, p50/p95, error rate)')
    .option(...JSON_FLAG)
    .action(async (o) => (await import('./mcp.ts')).list(o));
  mcp
    .command('show <name>')
    .description("one MCP server: settings, state, last error, tools under both names, a stdio server's last stderr lines")
    .option(...JSON_FLAG)
    .action(async (name: string, o) => (await import('./mcp.ts')).show(name, o));
  mcp
    .command('add <name>')
    .description('add an MCP server at runtime (kept in the store, on every instance)')
    .option('--url <url>', 'the server URL (streamable HTTP, or --transport sse)')
    .option('--transport <transport>', 'http (default with --url), sse, or stdio (default with --command)')
    .option('--header <name=value>', 'an HTTP header sent upstream; repeat for more', pair)
    .option('--command <program>', 'a stdio server: the program to run')
    .option('--arg <arg>', 'an argument of --command; repeat for more, in order', repeat)
    .option('--env <NAME=value>', 'an environment variable for --command; repeat for more', pair)
    .option('--cwd <dir>', 'the working directory of --command')
    .option('--timeout <seconds>', 'longest wait for one answer (default 60)', flags.positiveInt)
    .option('--cost <usd>', "USD charged to the key's budget per tool call", flags.usdAmount)
    .option('--include <patterns>', 'only these tools (its own names, comma-separated, * matches anything)', flags.toolPatterns)
    .option('--exclude <patterns>', 'not these tools', flags.toolPatterns)
    .option('--max-concurrency <n>', 'tool calls in flight at once on this server', flags.positiveInt)
    .option(...JSON_FLAG)
    .addHelpText(
      'after',
      `\nExamples:\n  gw mcp add github --url https://api.githubcopilot.com/mcp/ --header 'Authorization=Bearer ghp_…'\n  gw mcp add fs --command npx --arg -y --arg @modelcontextprotocol/server-filesystem --arg /srv/docs${ENV_HELP}`,
    )
    .action(async (name: string, o) => (await import('./mcp.ts')).add(name, o));
  mcp
    .command('remove <name>')
    .description('remove an MCP server added at runtime (one of the config file: edit the file, then reload)')
    .option(...JSON_FLAG)
    .action(async (name: string, o) => (await import('./mcp.ts')).remove(name, o));
}

/** Adds providers, keys, models, usage, budget, requests, cache, alerts, mcp and reload to `program`. */
export function registerManagementCommands(program: Command): void {
  const providers = program.command('providers').description('list, create and delete providers').addHelpText('after', ENV_HELP);
  providers
    .command('list')
    .description('list providers from the config file and created at runtime (api keys masked)')
    .option(...JSON_FLAG)
    .action(async (o) => (await import('./providers.ts')).list(o));
  providers
    .command('create <name>')
    .description('add a provider at runtime; without --models its model list is asked from the upstream')
    .option('--kind <kind>', 'provider kind: openai, anthropic, gemini, azure, dashscope, zhipu, or any name with --base-url (default: <name>)')
    .requiredOption('--api-key <key>', "the upstream's API key")
    .option('--base-url <url>', 'upstream origin (required for a self-defined kind)')
    .option('--models <a,b>', 'comma-separated model ids served (default: discovered)', modelList)
    .option(...JSON_FLAG)
    .addHelpText('after', ENV_HELP)
    .action(async (name: string, o) => (await import('./providers.ts')).create(name, o));
  providers
    .command('delete <name>')
    .description('delete a provider created at runtime; requests in flight finish')
    .option(...JSON_FLAG)
    .action(async (name: string, o) => (await import('./providers.ts')).remove(name, o));

  const keys = program.command('keys').description('list, create, update, rotate and revoke gateway keys').addHelpText('after', ENV_HELP);
  keys
    .command('list')
    .description("list gateway keys (by their secret's first characters) with their settings")
    .option(...JSON_FLAG)
    .action(async (o) => (await import('./keys.ts')).list(o));
  keySettingFlags(keys.command('create <name>').description('create a gateway key with its settings; the key is printed once'))
    .option(...JSON_FLAG)
    .addHelpText(
      'after',
      `\nExample:\n  gw keys create search-team --models 'gpt-4o*,claude-*' --budget 20 --period monthly --rpm 60 --tpm 100000 --expires 2027-01-01 --tag team=search${ENV_HELP}`,
    )
    .action(async (name: string, o) => (await import('./keys.ts')).create(name, o));
  keySettingFlags(keys.command('update <name>').description('change the settings of a key created at runtime; its secret stays'))
    .option(
      '--unset <settings>',
      'settings to remove, comma-separated: models, rpm, tpm, budget, period, expires, tags, max-parallel, mcp-tools, tool-calls, guardrails',
      flags.unsetList,
    )
    .option(...JSON_FLAG)
    .addHelpText('after', `\n--tag name= (no value) removes that tag.${ENV_HELP}`)
    .action(async (name: string, o) => (await import('./keys.ts')).update(name, o));
  keys
    .command('rotate <name>')
    .description('give a key created at runtime a new secret (printed once); the old one stops at once unless --grace')
    .option('--grace <duration>', 'keep accepting the old secret this long: 90, 90s, 15m, 2h, 1d (at most 30 days)', flags.duration)
    .option(...JSON_FLAG)
    .addHelpText('after', ENV_HELP)
    .action(async (name: string, o) => (await import('./keys.ts')).rotate(name, o));
  keys
    .command('revoke <name>')
    .description('revoke a key created at runtime; effective on the next request')
    .option(...JSON_FLAG)
    .action(async (name: string, o) => (await import('./keys.ts')).revoke(name, o));

  program
    .command('models')
    .description('list routable models and aliases with their providers')
    .option(...JSON_FLAG)
    .addHelpText('after', ENV_HELP)
    .action(async (o) => (await import('./models.ts')).models(o));
  program
    .command('usage')
    .description('token usage per key and model (usage extension)')
    .option(...JSON_FLAG)
    .addHelpText('after', ENV_HELP)
    .action(async (o) => (await import('./extensions.ts')).usage(o));
  program
    .command('budget')
    .description('spend and budget per key, this period (budget extension)')
    .option('--history', 'every recorded period, past ones included')
    .option(...JSON_FLAG)
    .addHelpText('after', ENV_HELP)
    .action(async (o) => (await import('./extensions.ts')).budget(o));
  program
    .command('requests')
    .description('the request log, oldest first (request_log extension)')
    .option('--limit <n>', 'entries to show (default 50; 20 before --follow starts; at most 1000)', positiveInt)
    .option('--key <name>', 'only this gateway key')
    .option('--model <model>', 'only this model (as requested, or as served)')
    .option('--provider <name>', 'only this provider')
    .option('--route <route>', 'only this route (chat, embeddings, messages)')
    .option('--status <s>', 'a status (502), a class (4xx, 5xx), error or ok')
    .option('--error-code <code>', 'only this error code (rate_limit_exceeded; http_<status> for a failure without one)')
    .option('--tag <name:value>', "only keys with this tag (team:search); '<name>:' for keys without it")
    .option('--request-id <part>', 'only request ids containing this (any case)')
    .option('--since <time>', 'only requests that ended at or after this RFC 3339 time')
    .option('--until <time>', 'only requests that ended before this RFC 3339 time')
    .option('-f, --follow', 'keep printing new requests as they end (Ctrl-C stops)')
    .option('--interval <ms>', 'with --follow: poll every this many ms (default 1000)', positiveInt)
    .option(...JSON_FLAG)
    .addHelpText('after', ENV_HELP)
    .action(async (o) => (await import('./requests.ts')).requests(o));
  const cache = program.command('cache').description('manage the response cache (cache extension)').addHelpText('after', ENV_HELP);
  cache
    .command('clear')
    .description('delete every cached response')
    .option(...JSON_FLAG)
    .action(async (o) => (await import('./extensions.ts')).cacheClear(o));
  const alerts = program.command('alerts').description('recent alerts and a test of the webhooks (alerts extension)').addHelpText('after', ENV_HELP);
  alerts
    .command('list')
    .description('the recent alerts, newest first')
    .option('--limit <n>', 'at most this many', positiveInt)
    .option(...JSON_FLAG)
    .action(async (o) => (await import('./alerts.ts')).list(o));
  alerts
    .command('test')
    .description('send a sample alert to every webhook now and print what each answered (non-zero exit when one failed)')
    .option(...JSON_FLAG)
    .action(async (o) => (await import('./alerts.ts')).test(o));
  registerMcpCommands(program);
  program
    .command('reload')
    .description('make the server re-read its config file (as SIGHUP does)')
    .option(...JSON_FLAG)
    .addHelpText('after', ENV_HELP)
    .action(async (o) => (await import('./reload.ts')).reload(o));
}
