/**
 * `gw keys create|update|rotate|list` with virtual key settings, driven as a subprocess
 * against a running gw: the flags of the example, the table's columns and
 * `--json`, the secret printed alone, file keys refused with a line saying to edit the file.
 */
import test from 'ava';
import OpenAI from 'openai';
import { runCli } from '../helpers/cli.ts';
import { ADMIN_TOKEN, baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { HI, openaiUpstream, providerSection } from '../helpers/ext-helpers.ts';

const envFor = (gw: TestGateway) => ({ GW_URL: gw.url, GW_ADMIN_TOKEN: ADMIN_TOKEN });

/** Runs `jobs` two at a time (few cores; other test files run alongside). */
async function pairs<T>(jobs: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < jobs.length; i += 2) out.push(...(await Promise.all(jobs.slice(i, i + 2).map((j) => j()))));
  return out;
}

test('keys create with every setting → list (table and --json) → update → rotate; file keys are refused', async (t) => {
  const up = await openaiUpstream();
  const toml = baseConfig(
    `${providerSection(up, ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5'])}\n[extensions.rate_limit]\nrequests_per_minute = 1000\n[extensions.budget]\ndefault_budget = 100\n[pricing."gpt-4o"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n[pricing."gpt-4o-mini"]\ninput_per_mtok = 1\noutput_per_mtok = 1\n`,
  ).replace(`key = "${KEY}"\n`, `key = "${KEY}"\nbudget = 5\nbudget_period = "weekly"\n`);
  const gw = await startGateway(toml);
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });

  const [created, badFlag] = await pairs([
    () =>
      runCli(
        [
          'keys',
          'create',
          'search',
          '--models',
          'gpt-4o*,claude-*',
          '--budget',
          '20',
          '--period',
          'monthly',
          '--rpm',
          '60',
          '--tpm',
          '100000',
          '--expires',
          '2027-01-01',
          '--tag',
          'team=search',
          '--tag',
          'env=prod',
          '--max-parallel',
          '4',
          '--guardrails',
          'pii_strict,-secrets',
        ],
        envFor(gw),
      ),
    () => runCli(['keys', 'create', 'bad', '--period', 'yearly'], envFor(gw)),
  ]);
  t.is(created.code, 0, created.stderr);
  t.regex(created.stdout, /^sk-[A-Za-z0-9_-]{32,}\n$/);
  const secret = created.stdout.trim();
  t.regex(created.stderr, /created key 'search'/);
  t.is(badFlag.code, 1);
  t.regex(badFlag.stderr, /--period.*expected one of daily, weekly, monthly, lifetime, got 'yearly'/);
  const c = new OpenAI({ baseURL: gw.baseURL, apiKey: secret, maxRetries: 0 });
  t.is((await c.chat.completions.create({ model: 'gpt-4o', messages: HI })).object, 'chat.completion');
  await t.throwsAsync(c.chat.completions.create({ model: 'text-embedding-3-small', messages: HI }), { instanceOf: OpenAI.PermissionDeniedError });

  const [list, json] = await pairs([() => runCli(['keys', 'list'], envFor(gw)), () => runCli(['keys', 'list', '--json'], envFor(gw))]);
  t.is(list.code, 0, list.stderr);
  const lines = list.stdout.trimEnd().split('\n');
  t.regex(lines[0]!, /^NAME\s+SOURCE\s+KEY\s+MODELS\s+RPM\s+TPM\s+BUDGET\s+PERIOD\s+EXPIRES\s+TAGS\s+PARALLEL\s+MCP_TOOLS\s+TOOL_CALLS\s+GUARDRAILS$/);
  // each key by its secret's first 8 characters (a runtime key's kept at creation), never a hash
  t.regex(lines[1]!, /^default\s+file\s+sk-test-…\s+all\s+-\s+-\s+5\s+weekly\s+-\s+-\s+-\s+none\s+-\s+-$/);
  t.regex(lines[2]!, /^second\s+file\s+sk-test-…\s+all\s+-\s+-\s+-\s+-\s+-\s+-\s+-\s+none\s+-\s+-$/);
  t.true(lines[3]!.includes(`runtime  ${secret.slice(0, 8)}…`), lines[3]);
  t.regex(
    lines[3]!,
    /^search\s+runtime\s+sk-[A-Za-z0-9_-]{5}…\s+gpt-4o\*,claude-\*\s+60\s+100000\s+20\s+monthly\s+2027-01-01T00:00:00Z\s+team=search,env=prod\s+4\s+none\s+-\s+pii_strict,-secrets$/,
  );
  t.false(list.stdout.includes('sha256'));
  t.is(lines[1]!.indexOf('file'), lines[3]!.indexOf('runtime'), 'columns are aligned');
  t.false(list.stdout.includes(secret));
  t.is(json.code, 0, json.stderr);
  const rows = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
  t.like(rows[2], {
    name: 'search',
    source: 'runtime',
    models: ['gpt-4o*', 'claude-*'],
    requests_per_minute: 60,
    tokens_per_minute: 100000,
    budget: 20,
    budget_period: 'monthly',
    expires_at: '2027-01-01T00:00:00Z',
    expired: false,
    tags: { team: 'search', env: 'prod' },
    max_parallel_requests: 4,
    guardrails: ['pii_strict', '-secrets'],
  });
  t.false(json.stdout.includes(secret));

  const [updated, updatedJson] = await pairs([
    () => runCli(['keys', 'update', 'search', '--rpm', '30', '--tag', 'env=', '--unset', 'expires,max-parallel,guardrails'], envFor(gw)),
    () => runCli(['keys', 'update', 'search', '--models', 'gpt-4o-mini', '--json'], envFor(gw)),
  ]);
  t.is(updated.code, 0, updated.stderr);
  t.is(updatedJson.code, 0, updatedJson.stderr);
  const after = (JSON.parse((await runCli(['keys', 'list', '--json'], envFor(gw))).stdout) as Array<Record<string, unknown>>)[2];
  t.like(after, {
    requests_per_minute: 30,
    expires_at: null,
    max_parallel_requests: null,
    guardrails: null,
    tags: { team: 'search' },
    models: ['gpt-4o-mini'],
    budget: 20,
  });
  t.regex(updated.stdout.split('\n')[0]!, /^NAME\s+SOURCE\s+KEY\s+MODELS/);
  t.like(JSON.parse(updatedJson.stdout), { name: 'search', models: ['gpt-4o-mini'] });
  t.is((await c.chat.completions.create({ model: 'gpt-4o-mini', messages: HI })).object, 'chat.completion'); // same secret

  const [nothing, fileKey] = await pairs([
    () => runCli(['keys', 'update', 'search'], envFor(gw)),
    () => runCli(['keys', 'update', 'default', '--budget', '1'], envFor(gw)),
  ]);
  t.deepEqual([nothing.code, nothing.stdout], [1, '']);
  t.regex(nothing.stderr, /^gw: nothing to change/);
  t.is(fileKey.code, 1);
  t.regex(
    fileKey.stderr,
    /^gw: key 'default' is defined in the config file .*gateway\.toml.*edit \[keys\.default\] there, then reload \(gw reload\) \(HTTP 409\)\n$/,
  );

  const rotated = await runCli(['keys', 'rotate', 'search', '--grace', '10m'], envFor(gw));
  t.is(rotated.code, 0, rotated.stderr);
  const next = rotated.stdout.trim();
  t.regex(rotated.stdout, /^sk-[A-Za-z0-9_-]{32,}\n$/);
  t.not(next, secret);
  t.regex(rotated.stderr, /the previous one keeps working until \d{4}-\d{2}-\d{2}T/);
  t.is((await c.chat.completions.create({ model: 'gpt-4o-mini', messages: HI })).object, 'chat.completion'); // in its grace period
  const [now, badGrace, fileRotate] = await pairs([
    () => runCli(['keys', 'rotate', 'search', '--json'], envFor(gw)),
    () => runCli(['keys', 'rotate', 'search', '--grace', 'soon'], envFor(gw)),
    () => runCli(['keys', 'rotate', 'default'], envFor(gw)),
  ]);
  t.is(now.code, 0, now.stderr);
  t.like(JSON.parse(now.stdout), { name: 'search', source: 'runtime', previous_key_valid_until: null });
  await t.throwsAsync(c.chat.completions.create({ model: 'gpt-4o-mini', messages: HI }), { instanceOf: OpenAI.AuthenticationError });
  await t.throwsAsync(new OpenAI({ baseURL: gw.baseURL, apiKey: next, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o-mini', messages: HI }), {
    instanceOf: OpenAI.AuthenticationError,
  });
  t.is(
    (
      await new OpenAI({ baseURL: gw.baseURL, apiKey: JSON.parse(now.stdout).key, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: HI,
      })
    ).object,
    'chat.completion',
  );
  t.is(badGrace.code, 1);
  t.regex(badGrace.stderr, /--grace.*expected a duration/);
  t.is(fileRotate.code, 1);
  t.regex(fileRotate.stderr, /defined in the config file/);

  // gw budget shows the period columns; --history the lifetime spend, then every recorded period
  const [budget, history] = await pairs([() => runCli(['budget'], envFor(gw)), () => runCli(['budget', '--history', '--json'], envFor(gw))]);
  t.is(budget.code, 0, budget.stderr);
  t.regex(budget.stdout.split('\n')[0]!, /^KEY\s+SPENT_USD\s+BUDGET_USD\s+REMAINING_USD\s+RESERVED_USD\s+PERIOD\s+PERIOD_START\s+RESETS_AT$/);
  t.regex(budget.stdout, /\ndefault\s+0\s+5\s+5\s+0\s+weekly\s+\S+T00:00:00Z\s+\S+T00:00:00Z\n/);
  t.is(history.code, 0, history.stderr);
  t.deepEqual(
    (JSON.parse(history.stdout) as Array<{ key: string; period: string }>).map((e) => [e.key, e.period]),
    [
      ['search', 'lifetime'],
      ['search', 'monthly'],
    ],
  );
});
