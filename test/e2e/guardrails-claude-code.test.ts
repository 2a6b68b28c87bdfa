/**
 * Claude Code (`claude -p`, offline) through gw with a secrets check (issue 41): its working
 * tree holds a `.env` file, it reads it with its Read tool, and the tool result goes on to the
 * vendor with the keys masked; the request log shows the hit, never the keys.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { runClaudeCode } from '../helpers/claude-code.ts';
import { admin } from '../helpers/ext-helpers.ts';
import { baseConfig, KEY, startGateway } from '../helpers/gateway.ts';
import { AWS_SECRET, SECRETS } from '../helpers/guardrails-secrets.ts';
import { replyScripted } from '../helpers/guardrails-upstream.ts';
import { startUpstream } from '../helpers/upstream.ts';

const MODEL = 'claude-sonnet-4-6';
const AWS_ID = SECRETS[0]!.value;
const GITHUB = SECRETS[2]!.value;
const DOT_ENV = `AWS_ACCESS_KEY_ID=${AWS_ID}\nAWS_SECRET_ACCESS_KEY=${AWS_SECRET}\nGITHUB_TOKEN=${GITHUB}\nPORT=8080\n`;
const ANSWER = 'The .env file sets the AWS and GitHub credentials and PORT=8080.';

test('claude -p reads a .env file with its Read tool: the vendor never receives the keys, the request log shows the hit', async (t) => {
  const up = await startUpstream((req, res) => {
    const body = JSON.stringify(req.json);
    if (body.includes('"tool_result"')) return void replyScripted(req, { text: [ANSWER] }, res);
    // Claude Code names its working directory in its prompt; Read takes an absolute path
    const dir = /Primary working directory: ([^\s\\]+)/.exec(body)?.[1];
    replyScripted(req, { text: ['Reading it.'], call: { name: 'Read', args: [JSON.stringify({ file_path: `${dir}/.env` })] } }, res);
  });
  const gw = await startGateway(
    baseConfig(`[providers.anthropic]\nkind = "anthropic"\napi_key = "sk-ant-upstream-0123456789"\nbase_url = "${up.origin}"\nmax_retries = 0\nmodels = ["${MODEL}"]\n
[extensions.request_log]

[extensions.guardrails.checks.secrets]
type = "secrets"
action = "mask"
`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const r = await runClaudeCode({
    baseUrl: gw.url,
    apiKey: KEY,
    model: MODEL,
    prompt: 'What does the .env file set?',
    files: { '.env': DOT_ENV },
    args: ['--output-format', 'json', '--allowedTools', 'Read'],
  });
  t.false(r.timedOut);
  t.is(r.code, 0, r.stderr);
  t.is(JSON.parse(r.stdout).result, ANSWER);

  const turn = up.received.find((req) => req.body.includes('"tool_result"'));
  t.truthy(turn, 'Claude Code sent the file back');
  for (const req of up.received) for (const secret of [AWS_ID, AWS_SECRET, GITHUB]) t.false(req.body.includes(secret), 'a key reached the vendor');
  t.true(turn!.body.includes('[SECRET:aws-access-key]') && turn!.body.includes('[SECRET:github-token]'), turn!.body.slice(-2000));
  t.true(turn!.body.includes('PORT=8080'), 'the rest of the file as Claude Code read it');

  let entries: Array<Record<string, any>> = [];
  for (let i = 0; i < 100 && entries.length < up.received.length; i++) {
    entries = (await admin(gw, 'GET', '/v1/requests')).body;
    await sleep(20);
  }
  const hit = entries.find((e) => e.guardrails.length > 0);
  t.truthy(hit);
  t.like(
    hit!.guardrails.find((g: { entity: string }) => g.entity === 'aws-access-key'),
    { check: 'secrets', phase: 'request', action: 'mask', count: 1 },
  );
  t.false(JSON.stringify(entries).includes(AWS_ID));
});
