/**
 * Foundation: the config file. `${VAR}` expansion, and one bad config per kind of mistake,
 * each error naming the file, the key path and what was expected (loadConfig and
 * createGateway directly; the CLI's one-line report in foundation-cli.test.ts).
 */
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../lib/config/error.ts';
import { firstRunConfigText } from '../../server/config/first-run.ts';
import { loadConfig } from '../../server/config/load.ts';
import { createLogger } from '../../server/log.ts';
import { createGateway } from '../../server/gateway.ts';

const silent = createLogger('silent');

/** Writes `toml` to a fresh temp dir; returns the file path. */
async function configFile(t: import('ava').ExecutionContext, toml: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-cfg-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.toml');
  await writeFile(file, toml);
  return file;
}

/** Loads and builds a gateway from `toml`; returns the error thrown (fails when none). */
async function failure(t: import('ava').ExecutionContext, toml: string, env: NodeJS.ProcessEnv = {}): Promise<{ err: Error; file: string }> {
  const file = await configFile(t, toml);
  try {
    const cfg = await loadConfig(file, env);
    const gw = await createGateway(cfg, silent);
    await gw.close();
  } catch (err) {
    return { err: err as Error, file };
  }
  t.fail('expected a config error');
  throw new Error('unreachable');
}

test('${VAR} and ${VAR:-default} are expanded in string values', async (t) => {
  const file = await configFile(
    t,
    `
admin_token = "\${GW_T_ADMIN}"
[keys.default]
key = "sk-\${GW_T_KEY}-0123456789abcdef"
[providers.up]
api_key = "\${GW_T_UP_KEY}"
base_url = "\${GW_T_UP_URL:-http://127.0.0.1:9/v1}"
models = ["\${GW_T_MODEL:-m1}", "m2"]
`,
  );
  const cfg = await loadConfig(file, { GW_T_ADMIN: 'sk-admin-from-env-0123456789', GW_T_KEY: 'abc', GW_T_UP_KEY: 'sk-up-env', GW_T_MODEL: 'm0' });
  t.is(cfg.admin_token, 'sk-admin-from-env-0123456789');
  t.is(cfg.keys.default!.key, 'sk-abc-0123456789abcdef');
  t.is(cfg.providers.up!.api_key, 'sk-up-env');
  t.is(cfg.providers.up!.base_url, 'http://127.0.0.1:9/v1');
  t.deepEqual(cfg.providers.up!.models, ['m0', 'm2']);
});

test('an unset ${VAR} is an error naming the variable and the key path', async (t) => {
  const { err, file } = await failure(t, '[providers.up]\napi_key = "${GW_T_UNSET_KEY}"\nbase_url = "http://127.0.0.1:9/v1"\n');
  t.true(err instanceof ConfigError);
  t.true(err.message.includes(file));
  t.true(err.message.includes('GW_T_UNSET_KEY'));
  t.true(err.message.includes('providers.up.api_key'));
});

test('TOML syntax error: names the file and the line', async (t) => {
  const { err, file } = await failure(t, 'listen = "127.0.0.1:0"\n\n[providers.up\napi_key = "x"\n');
  t.true(err instanceof ConfigError);
  t.true(err.message.includes(file));
  t.regex(err.message, /TOML syntax error at line 3\b/);
});

test('unknown top-level key: names it', async (t) => {
  const { err, file } = await failure(t, 'listen = "127.0.0.1:0"\nlisten_port = 8080\n');
  t.true(err instanceof ConfigError);
  t.true(err.message.includes(file));
  t.regex(err.message, /unknown key 'listen_port'/);
  t.notRegex(err.message, /extensions/);
});

test('a top-level section named like a built-in extension ([alerts]): says it goes under [extensions.alerts]', async (t) => {
  const { err } = await failure(t, 'listen = "127.0.0.1:0"\n\n[alerts]\ncooldown_seconds = 60\n');
  t.true(err instanceof ConfigError);
  t.regex(err.message, /\(top level\): unknown key 'alerts' \(an extension's settings go under \[extensions\.alerts\]\)/);
});

test('wrong type: names the key path and the expected type', async (t) => {
  const { err, file } = await failure(t, 'max_body_bytes = "32MB"\n');
  t.true(err instanceof ConfigError);
  t.true(err.message.includes(file));
  t.regex(err.message, /max_body_bytes: .*expected number/);
  const nested = await failure(t, '[providers.up]\napi_key = "k"\nbase_url = "http://127.0.0.1:9/v1"\nmodels = "m1"\n');
  t.regex(nested.err.message, /providers\.up\.models: .*expected array/);
});

test('bad listen: names listen and the expected <host>:<port>', async (t) => {
  const { err, file } = await failure(t, 'listen = "8080"\n');
  t.true(err instanceof ConfigError);
  t.true(err.message.includes(file));
  t.regex(err.message, /listen: expected "<host>:<port>"/);
});

test('provider without api_key: names providers.<name>.api_key', async (t) => {
  const { err, file } = await failure(t, '[providers.openai]\nmodels = ["gpt-4o"]\n');
  t.true(err instanceof ConfigError);
  t.true(err.message.includes(file));
  t.regex(err.message, /providers\.openai\.api_key: .*expected/);
});

test('unknown provider kind without base_url: names the section and says what to do', async (t) => {
  const { err, file } = await failure(t, '[providers.mystery]\napi_key = "k"\nmodels = ["m"]\n');
  t.true(err instanceof ConfigError);
  t.true(err.message.includes(file));
  t.true(err.message.includes('providers.mystery'));
  t.regex(err.message, /no built-in provider kind 'mystery' and the npm package gw-plugin-mystery is not installed; give base_url/);
});

test('unknown field in a provider section: names it', async (t) => {
  const { err } = await failure(t, '[providers.up]\napi_key = "k"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = ["m"]\n');
  t.true(err instanceof ConfigError);
  t.regex(err.message, /providers\.up: unknown key 'model'/);
});

test('unknown extension: names extensions.<name> and the npm package looked for', async (t) => {
  const { err, file } = await failure(t, '[extensions.nonesuch]\n');
  t.true(err instanceof ConfigError);
  t.true(err.message.includes(file));
  t.true(err.message.includes('extensions.nonesuch'));
  t.true(err.message.includes('gw-plugin-nonesuch'));
});

test("[extensions.rate_limit] without requests_per_minute: the spec's required field, named with the file; a key's own limit does not stand in for it", async (t) => {
  const keyed = '[keys.a]\nkey = "sk-test-key-a-0123456789abcdefghij"\nrequests_per_minute = 5\n\n';
  for (const section of ['[extensions.rate_limit]\n', '[extensions.rate_limit]\ntokens_per_minute = 1000\n']) {
    const { err, file } = await failure(t, keyed + section);
    t.true(err instanceof ConfigError, section);
    t.true(err.message.includes(file));
    t.regex(err.message, /extensions\.rate_limit\.requests_per_minute: required/);
    t.is((err as ConfigError).path, 'extensions.rate_limit.requests_per_minute');
  }
  const { err } = await failure(t, '[extensions.rate_limit]\nrequests_per_minute = "60"\n');
  t.regex(err.message, /extensions\.rate_limit\.requests_per_minute: .*expected number, received string/);
});

test("the first run's config, every commented example uncommented, is a config gw builds: its examples are real settings", async (t) => {
  const text = firstRunConfigText('127.0.0.1:0', 'sk-admin-0123456789abcdef0123', 'sk-key-0123456789abcdef01234');
  // a commented section, array of tables or `key = value`; prose comments start otherwise
  const uncommented = text
    .split('\n')
    .map((line) => (/^# (\[|[a-z_]+ = )/.test(line) ? line.slice(2) : line))
    .join('\n');
  t.regex(uncommented, /^\[providers\.openai\]/m);
  const env = {
    OPENAI_API_KEY: 'sk-o',
    ANTHROPIC_API_KEY: 'sk-a',
    GEMINI_API_KEY: 'g',
    AZURE_OPENAI_API_KEY: 'az',
    DASHSCOPE_API_KEY: 'd',
    ZHIPU_API_KEY: 'z',
  };
  const cfg = await loadConfig(await configFile(t, uncommented), { ...env, ALERTS_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
  t.deepEqual(Object.keys(cfg.extensions).sort(), [
    'alerts',
    'budget',
    'cache',
    'guardrails',
    'logging',
    'otel',
    'rate_limit',
    'recorder',
    'request_log',
    'usage',
  ]);
  const gw = await createGateway(cfg, silent);
  await gw.close();
  t.true(gw.snapshot.table.models().includes('mock-1'));
});
