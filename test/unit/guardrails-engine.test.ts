/**
 * Guardrails checks on whole requests and answers, through each protocol's content view:
 * config errors name the field, scoping by key and the key setting `guardrails`, masks that
 * reach text and nothing else (model names, ids, tool names, JSON structure byte for byte),
 * a tool result carrying a `.env` file, blocks and monitors that change nothing, a request
 * with no check paying nothing, and the false-positive count on every recorded fixture.
 */
import test from 'ava';
import { Edits } from '../../lib/content/parts.ts';
import type { TextPart } from '../../lib/content/types.ts';
import { answerContent, requestContent } from '../../lib/content/view.ts';
import { type Check, compileChecks } from '../../plugins/extensions/guardrails/checks.ts';
import { keySettingsSchema } from '../../lib/key-settings.ts';
import { guardrailsSchema, keyGuardrailsProblem, redactsStored } from '../../plugins/extensions/guardrails/config.ts';
import { checkParts } from '../../plugins/extensions/guardrails/engine.ts';
import { Window } from '../../plugins/extensions/guardrails/window.ts';
import { HeldEvent } from '../../lib/content/steps.ts';
import { Guardrails } from '../../plugins/extensions/guardrails/guardrails.ts';
import { contentCases, type ProtocolId, READERS } from '../helpers/content-fixtures.ts';
import { SECRETS } from '../helpers/guardrails-secrets.ts';

const [AWS, ANTHROPIC, GITHUB, PEM] = SECRETS.map((s) => s.value) as [string, string, string, string];
const EMAIL = 'ops.lead@corp-mail.net';
const CARD = '4111-1111-1111-1111';
const ENV_FILE = `OPENAI_BASE=https://api.example.net/v1\nGITHUB_TOKEN=${GITHUB}\nAWS_ACCESS_KEY_ID=${AWS}\nADMIN_EMAIL=${EMAIL}\n`;
const PROMPT = `Deploy with ${ANTHROPIC} and bill card ${CARD}. Key file:\n${PEM}\nThen mail ${EMAIL}.`;

function checks(action: 'block' | 'mask' | 'monitor'): Check[] {
  return compileChecks(
    guardrailsSchema.parse({
      checks: { secrets: { type: 'secrets', action }, pii: { type: 'pii', action, entities: ['email', 'credit_card'] } },
    }),
  );
}

/** A request of each protocol carrying the prompt, a tool call and its result (the `.env` file), with model names, ids and tool names full of digits and dashes. */
function requestOf(protocol: ProtocolId): Record<string, unknown> {
  switch (protocol) {
    case 'openai-chat':
      return {
        model: 'gpt-5.4-nano',
        messages: [
          { role: 'system', content: 'You deploy services.' },
          { role: 'user', content: PROMPT },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_9Xq-42', type: 'function', function: { name: 'read_file_v2', arguments: '{"path":".env"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_9Xq-42', content: ENV_FILE },
        ],
        tools: [
          {
            type: 'function',
            function: { name: 'read_file_v2', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
          },
        ],
      };
    case 'anthropic-messages':
      return {
        model: 'claude-sonnet-4-5-20250929',
        max_tokens: 1024,
        system: 'You deploy services.',
        messages: [
          { role: 'user', content: PROMPT },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'read_file_v2', input: { path: '.env' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: ENV_FILE }] },
        ],
        tools: [{ name: 'read_file_v2', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
      };
    case 'openai-responses':
      return {
        model: 'gpt-5.4-nano',
        instructions: 'You deploy services.',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: PROMPT }] },
          { type: 'function_call', call_id: 'call_9Xq-42', name: 'read_file_v2', arguments: '{"path":".env"}' },
          { type: 'function_call_output', call_id: 'call_9Xq-42', output: ENV_FILE },
        ],
        tools: [
          { type: 'function', name: 'read_file_v2', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
        ],
      };
    case 'gemini':
      return {
        systemInstruction: { parts: [{ text: 'You deploy services.' }] },
        contents: [
          { role: 'user', parts: [{ text: PROMPT }] },
          { role: 'model', parts: [{ functionCall: { name: 'read_file_v2', args: { path: '.env' } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'read_file_v2', response: { content: ENV_FILE } } }] },
        ],
        tools: [
          {
            functionDeclarations: [
              { name: 'read_file_v2', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
            ],
          },
        ],
      };
  }
}

/** A body's JSON with every request text emptied: what a mask must leave as it was. */
function structure(protocol: ProtocolId, body: Record<string, unknown>): string {
  const copy = structuredClone(body);
  const at = new Edits(true);
  for (const part of requestContent(READERS[protocol], copy, at).texts()) part.set('');
  at.commit();
  return JSON.stringify(copy);
}

const PROTOCOLS: ProtocolId[] = ['openai-chat', 'anthropic-messages', 'openai-responses', 'gemini'];

for (const protocol of PROTOCOLS) {
  test(`${protocol}: mask replaces each secret, email and card by its placeholder, in messages and the tool result, and nothing else`, (t) => {
    const body = requestOf(protocol);
    const before = structure(protocol, body);
    const at = new Edits(true);
    const verdict = checkParts(requestContent(READERS[protocol], body, at).texts(), checks('mask'), 'request');
    at.commit();
    const sent = JSON.stringify(body);
    for (const value of [AWS, ANTHROPIC, GITHUB, EMAIL, CARD, PEM.split('\n')[1]!]) t.false(sent.includes(value), `${value.slice(0, 12)}… reached the wire`);
    for (const placeholder of [
      '[SECRET:aws-access-key]',
      '[SECRET:anthropic-key]',
      '[SECRET:github-token]',
      '[SECRET:private-key]',
      '[EMAIL]',
      '[CREDIT_CARD]',
    ])
      t.true(sent.includes(placeholder), placeholder);
    t.true(sent.includes('OPENAI_BASE=https://api.example.net/v1'), 'the rest of the .env file is untouched');
    t.is(structure(protocol, body), before, 'model, ids, tool names and structure unchanged');
    t.is(verdict.blocked, undefined);
    const counts = Object.fromEntries(verdict.outcomes.map((o) => [`${o.check}:${o.entity}`, o.count]));
    t.is(counts['pii:email'], 2);
    t.is(counts['secrets:github-token'], 1);
    t.true(verdict.outcomes.every((o) => o.action === 'mask' && o.phase === 'request'));
    t.false(JSON.stringify(verdict).includes(GITHUB.slice(4)), 'an outcome never carries the matched text');
  });
}

test('block: the first hit names the check and the entity; nothing is rewritten', (t) => {
  const body = requestOf('anthropic-messages');
  const original = JSON.stringify(body);
  const verdict = checkParts(requestContent(READERS['anthropic-messages'], body, new Edits(true)).texts(), checks('block'), 'request');
  t.deepEqual(verdict.blocked, { check: 'secrets', entity: 'anthropic-key' });
  t.is(JSON.stringify(body), original);
});

test('monitor: outcomes are counted and the request is left as it was', (t) => {
  const body = requestOf('openai-chat');
  const original = JSON.stringify(body);
  const verdict = checkParts(requestContent(READERS['openai-chat'], body, new Edits(true)).texts(), checks('monitor'), 'request');
  t.is(JSON.stringify(body), original);
  t.is(verdict.blocked, undefined);
  t.true(verdict.outcomes.length >= 5);
  t.true(verdict.outcomes.every((o) => o.action === 'monitor'));
});

test('an answer: tool-call arguments and text are masked, the call id and name kept', (t) => {
  const answer = {
    id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
    object: 'chat.completion',
    model: 'gpt-5.4-nano',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: `Use ${GITHUB}`,
          tool_calls: [
            {
              id: 'call_9Xq-42',
              type: 'function',
              function: { name: 'write_env_v2', arguments: JSON.stringify({ line: `AWS_ACCESS_KEY_ID=${AWS}`, mode: 0o600 }) },
            },
          ],
        },
      },
    ],
  };
  const at = new Edits(true);
  checkParts(answerContent(READERS['openai-chat'], answer, at).texts(), checks('mask'), 'response');
  at.commit();
  const message = answer.choices[0]!.message;
  t.is(message.content, 'Use [SECRET:github-token]');
  t.deepEqual(JSON.parse(message.tool_calls[0]!.function.arguments), { line: 'AWS_ACCESS_KEY_ID=[SECRET:aws-access-key]', mode: 384 });
  t.is(message.tool_calls[0]!.id, 'call_9Xq-42');
  t.is(message.tool_calls[0]!.function.name, 'write_env_v2');
});

test('a phase a check does not read is not checked; no check in scope reads no part at all', (t) => {
  const untouchable: TextPart = {
    type: 'text',
    get text(): string {
      throw new Error('read');
    },
    set() {
      throw new Error('set');
    },
  };
  const requestOnly = compileChecks(guardrailsSchema.parse({ checks: { secrets: { type: 'secrets', action: 'mask', phase: ['request'] } } }));
  t.is(checkParts([untouchable], requestOnly, 'response').outcomes.length, 0);
  t.is(checkParts([untouchable], [], 'request').outcomes.length, 0);
  t.is(new Guardrails(guardrailsSchema.parse({})).checksFor({ name: 'default' }).length, 0);
});

test('config: errors name the field and what was expected', (t) => {
  const problems = (checks: unknown) => guardrailsSchema.safeParse({ checks }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
  t.deepEqual(problems({ pii: { type: 'pii', action: 'mask', entities: ['email', 'passport'] } }), [
    'checks.pii.entities.1: expected one of email, phone, credit_card, iban, ip, us_ssn',
  ]);
  t.deepEqual(problems({ s: { type: 'secrets', action: 'redact' } }), ['checks.s.action: expected "block", "mask" or "monitor"']);
  t.deepEqual(problems({ s: { type: 'virus', action: 'block' } }), ['checks.s.type: expected "secrets", "pii", "regex" or "webhook"']);
  t.deepEqual(problems({ 'Bad-Name': { type: 'secrets', action: 'block' } }), ['checks.Bad-Name: a check name is lower-case letters, digits and _ (1 to 64)']);
  t.deepEqual(problems({ w: { type: 'webhook', action: 'block', url: 'ftp://x' } }), ['checks.w.url: expected an http:// or https:// URL']);
  t.deepEqual(problems({ p: { type: 'pii', action: 'mask', entities: ['phone'], phone_regions: ['XX'] } }), [
    'checks.p.phone_regions.0: expected an ISO 3166-1 alpha-2 region, e.g. "US", "GB", "DE"',
  ]);
  t.throws(() => compileChecks(guardrailsSchema.parse({ checks: { ids: { type: 'regex', action: 'mask', patterns: ['(x)\\1'] } } })), {
    message: /^extensions\.guardrails\.checks\.ids\.patterns\[0\]: /,
  });
});

test('config: redact_stored defaults to on when any check exists', (t) => {
  t.false(redactsStored(guardrailsSchema.parse({})));
  t.true(redactsStored(guardrailsSchema.parse({ checks: { s: { type: 'secrets', action: 'monitor' } } })));
  t.false(redactsStored(guardrailsSchema.parse({ redact_stored: false, checks: { s: { type: 'secrets', action: 'monitor' } } })));
});

test('scope: unscoped checks apply to every key; keys and tags scope; the key setting adds and opts out', (t) => {
  const guard = new Guardrails(
    guardrailsSchema.parse({
      checks: {
        secrets: { type: 'secrets', action: 'block' },
        payments: { type: 'pii', action: 'mask', entities: ['credit_card'], tags: { team: 'payments' } },
        interns: { type: 'pii', action: 'monitor', entities: ['email'], keys: ['intern-1'] },
      },
    }),
  );
  const names = (key: Parameters<Guardrails['checksFor']>[0]) => guard.checksFor(key).map((c) => c.name);
  t.deepEqual(names(undefined), ['secrets']);
  t.deepEqual(names({ name: 'default' }), ['secrets']);
  t.deepEqual(names({ name: 'intern-1' }), ['secrets', 'interns']);
  t.deepEqual(names({ name: 'billing', tags: { team: 'payments', env: 'prod' } }), ['secrets', 'payments']);
  t.deepEqual(names({ name: 'billing', tags: { team: 'search' } }), ['secrets']);
  t.deepEqual(names({ name: 'ci', guardrails: ['-secrets', 'interns'] }), ['interns']);
  t.deepEqual(names({ name: 'ci', guardrails: ['-secrets'] }), []);
  t.is(guard.checksFor({ name: 'a' }), guard.checksFor({ name: 'b', guardrails: [] }), 'a key that changes nothing shares one list');

  const keyGuardrailsSchema = keySettingsSchema.shape.guardrails.unwrap();
  t.true(keyGuardrailsSchema.safeParse(['secrets', '-interns']).success);
  t.is(keyGuardrailsSchema.safeParse(['secrets', '-secrets']).error?.issues[0]?.message, 'a check is named twice');
  t.is(keyGuardrailsSchema.safeParse(['Secrets']).error?.issues[0]?.message, 'expected a check name, or "-" and a check name to opt out');
  const known = new Set(guard.checks.map((c) => c.name));
  t.is(keyGuardrailsProblem(['-secrets', 'payments'], known), undefined);
  t.is(keyGuardrailsProblem(['-secret'], known), "guardrails: no check named 'secret' (known: secrets, payments, interns)");
});

test('the detector gw scrubs stored text with: every local check, matches in order, not overlapping, typed by entity', (t) => {
  const detector = new Guardrails(
    guardrailsSchema.parse({
      checks: { s: { type: 'secrets', action: 'monitor' }, p: { type: 'pii', action: 'monitor', entities: ['email'], phase: ['response'] } },
    }),
  ).storedDetector();
  const text = `a ${GITHUB} b ${AWS} c ana.lopez@example.org`;
  t.deepEqual(
    detector.find(text).map((m: { type: string; start: number; end: number }) => [m.type, text.slice(m.start, m.end)]),
    [
      ['github-token', GITHUB],
      ['aws-access-key', AWS],
      ['email', 'ana.lopez@example.org'],
    ],
  );
});

test('false positives: no recorded request, answer or stream gets a single hit from secrets and every PII entity', (t) => {
  const all = compileChecks(
    guardrailsSchema.parse({
      checks: {
        secrets: { type: 'secrets', action: 'mask' },
        pii: { type: 'pii', action: 'mask', entities: ['email', 'phone', 'credit_card', 'iban', 'ip', 'us_ssn'] },
      },
    }),
  );
  let read = 0;
  let parts = 0;
  let characters = 0;
  const hits: string[] = [];
  let events = 0;
  for (const c of contentCases().cases) {
    if (c.kind === 'stream') {
      // each event through the stream window, as the kernel's stepped loop hands it
      const window = new Window<HeldEvent>(all);
      for (const e of c.events) {
        window.push(new HeldEvent(READERS[c.protocol], e.data, undefined, undefined));
        events++;
      }
      window.end();
      for (const o of window.outcomes) hits.push(`${c.name}: ${o.check} ${o.entity} ×${o.count}`);
      continue;
    }
    const body = structuredClone(c.body);
    const at = new Edits(true);
    const texts = c.kind === 'request' ? requestContent(READERS[c.protocol], body, at).texts() : answerContent(READERS[c.protocol], body, at).texts();
    read++;
    parts += texts.length;
    for (const part of texts) characters += part.text.length;
    for (const o of checkParts(texts, all, c.kind === 'request' ? 'request' : 'response').outcomes) hits.push(`${c.name}: ${o.check} ${o.entity} ×${o.count}`);
  }
  t.log(`${read} requests and answers, ${parts} text parts, ${characters} characters, ${events} stream events: ${hits.length} hits`);
  t.true(read >= 50);
  t.deepEqual(hits, []);
});
