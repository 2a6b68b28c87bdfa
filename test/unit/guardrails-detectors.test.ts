/**
 * The guardrails detectors on strings, with the real libraries: secretlint's recommended
 * rules run in-process find what `@secretlint/core`'s `lintSource` finds, on the secret
 * itself; PII is found only when its validator agrees (a Luhn-invalid card, a wrong IBAN
 * checksum, `std::vector` are not); operator patterns compile with RE2 or fail naming the
 * pattern; and what each detector says a stream must hold back.
 */
import { lintSource } from '@secretlint/core';
import { creator as preset } from '@secretlint/secretlint-rule-preset-recommend';
import test from 'ava';
import type { Detector } from '../../plugins/extensions/guardrails/detector.ts';
import { piiDetector } from '../../plugins/extensions/guardrails/detectors/pii.ts';
import { regexDetector } from '../../plugins/extensions/guardrails/detectors/regex.ts';
import { OPENERS, presetRuleIds, secretEntity } from '../../plugins/extensions/guardrails/detectors/secret-rules.ts';
import { secretsDetector } from '../../plugins/extensions/guardrails/detectors/secrets.ts';
import { AWS_SECRET, SECRETS } from '../helpers/guardrails-secrets.ts';

const secrets = secretsDetector({ allow: [] });
const pii = piiDetector({ entities: ['email', 'phone', 'credit_card', 'iban', 'ip', 'us_ssn'], phoneRegions: ['US', 'DE'] });

/** What `detector` finds in `text`: entity and matched text. */
const found = (detector: Detector, text: string) => detector.find(text).map((m) => [m.entity, text.slice(m.start, m.end)]);

for (const { kind, value, entity } of SECRETS) {
  test(`secrets: a ${kind} is found whole, in prose, in JSON text and in a .env file`, (t) => {
    // in JSON text a private key's line breaks are `\n`: found as written
    const quoted = JSON.stringify(value).slice(1, -1);
    for (const [text, written] of [
      [`use ${value} for the deploy`, value],
      [JSON.stringify({ key: value }), quoted],
      [`API_KEY=${value}\nDEBUG=1`, value],
    ] as const) {
      const hits = found(secrets, text);
      t.true(hits.length > 0, `found in ${JSON.stringify(text.slice(0, 40))}`);
      t.true(
        hits.some(([e, v]) => e === entity && v === written),
        `${kind} as ${entity}: ${JSON.stringify(hits.map(([e]) => e))}`,
      );
    }
  });
}

test("secrets: an AWS secret access key is reported on its 40 characters, not on the assignment's start (secretlint's range is relocated)", (t) => {
  const text = `[default]\naws_secret_access_key = ${AWS_SECRET}\n`;
  t.deepEqual(found(secrets, text), [['aws-secret-key', AWS_SECRET]]);
});

test('secrets: a secretlint-disable comment in the text does not switch detection off (the filter rule is not run)', (t) => {
  const { value } = SECRETS[2]!;
  t.deepEqual(found(secrets, `// secretlint-disable\nconst token = "${value}";`), [['github-token', value]]);
});

test('secrets: an allowed value is not reported; model names, ids and tool names are never secrets', (t) => {
  const { value } = SECRETS[2]!;
  t.deepEqual(found(secretsDetector({ allow: [value] }), `token ${value}`), []);
  const benign =
    'model gpt-5.4-nano or claude-sonnet-4-5-20250929, id chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG, toolu_01A09q90qw90lq917835lq9, call_abc123, get_weather, sk-ant (a prefix alone), the secret of a good account';
  t.deepEqual(found(secrets, benign), []);
});

test("secrets: the preset's every rule is in the openers table (a new rule fails here, so it is never skipped unknowingly)", (t) => {
  t.deepEqual(presetRuleIds().toSorted(), Object.keys(OPENERS).toSorted());
});

test("secrets: the in-process runner finds what @secretlint/core's lintSource finds, on the same text", async (t) => {
  const corpus = [
    ...SECRETS.map((s) => `value: ${s.value}`),
    `AWS_SECRET_ACCESS_KEY="${AWS_SECRET}"`,
    'postgres://admin:Zx8!vq2Lm@db.internal.example:5432/app',
    `slack xoxb-1234567890-1234567890123-${'A1b2C3d4E5f6G7h8I9j0K1l2'}`,
    `npm_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`,
    'nothing here but prose about keys and tokens',
  ];
  const config = {
    rules: [{ id: preset.meta.id, rule: preset, rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }] }],
  };
  for (const text of corpus) {
    const result = await lintSource({
      source: { content: text, filePath: 'prompt.txt', ext: '.txt', contentType: 'text' },
      options: { config, noPhysicFilePath: true },
    });
    const theirs = result.messages.map((m) => {
      const value = Object.values((m.data ?? {}) as Record<string, unknown>).find((v) => typeof v === 'string') as string;
      return `${secretEntity(m.messageId)} ${value}`;
    });
    const ours = new Set(found(secrets, text).map(([e, v]) => `${e} ${v}`));
    for (const finding of theirs) t.true(ours.has(finding), `${finding.slice(0, 40)}… in ${JSON.stringify(text.slice(0, 30))}`);
    if (text.startsWith('nothing')) t.deepEqual(theirs, []);
  }
});

test('secrets: pending holds the trailing word, an open private key block and an AWS assignment; nothing in finished prose', (t) => {
  t.is(secrets.pending('done. '), 6);
  t.is(secrets.pending('the key is ghp_12'), 11);
  const open = 'x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc';
  t.is(secrets.pending(open), 2);
  t.is(secrets.pending(`${open}\n-----END RSA PRIVATE KEY----- `), `${open}\n-----END RSA PRIVATE KEY----- `.length);
  t.is(secrets.pending('aws_secret_access_key = '), 0);
  const app = `token ghs_123_${'x'.repeat(3000)}`;
  t.is(secrets.pending(app), 6, 'a GitHub app token is held past the 1,400 characters of other tokens');
  t.is(secrets.pending(`words ${'y'.repeat(3000)}`), 6 + 3000 - 1400);
});

test('pii: each entity is found, and only when its validator agrees', (t) => {
  const text = [
    'write to jane.doe+ops@example.co.uk or call (415) 555-2671, +44 20 7946 0958, 030 1234 5678',
    'card 4111 1111 1111 1111 (Luhn-valid Visa), not 4111 1111 1111 1112 (Luhn-invalid)',
    'iban DE89 3704 0044 0532 0130 00, not DE89 3704 0044 0532 0130 01 (checksum)',
    'hosts 192.168.1.20 and 2001:db8::ff00:42:8329, not 999.1.1.1, std::vector or dead::beef',
    'ssn 123-45-6789',
  ].join('\n');
  t.deepEqual(found(pii, text), [
    ['email', 'jane.doe+ops@example.co.uk'],
    ['phone', '(415) 555-2671'],
    ['phone', '+44 20 7946 0958'],
    ['phone', '030 1234 5678'],
    ['credit_card', '4111 1111 1111 1111'],
    ['iban', 'DE89 3704 0044 0532 0130 00'],
    ['ip', '192.168.1.20'],
    ['ip', '2001:db8::ff00:42:8329'],
    ['us_ssn', '123-45-6789'],
  ]);
  const ssn = piiDetector({ entities: ['us_ssn'], phoneRegions: ['US'] });
  t.deepEqual(found(ssn, 'not 000-12-3456, 666-12-3456, 900-12-3456, 123-00-4567 or 123-45-0000'), []);
});

test('pii: model names, versions, dates, ids, timestamps and tool names are not personal data', (t) => {
  const text =
    'gpt-5.4-nano claude-sonnet-4-5-20250929 gemini-2.5-flash v1.2.3 2024-01-15 1727893452 17278934521234 msg_01XFDUDYJgAACzvnptvVoYEL get_weather_v2 user@ (no domain) @here';
  t.deepEqual(found(pii, text), []);
});

test('pii: pending holds only a run that may still grow into an entity', (t) => {
  t.is(pii.pending('hello there. '), 13);
  t.is(pii.pending('mail me at jane.do'), 11);
  t.is(pii.pending('card 4111 1111'), 5);
});

test('regex: RE2 syntax compiles; a backreference or lookaround fails naming the pattern', (t) => {
  const tickets = regexDetector({ patterns: ['TICKET-\\d{4,6}'], entity: 'ticket', maxLength: 32 });
  t.deepEqual(found(tickets, 'see TICKET-1234 and TICKET-99, TICKET-123456'), [
    ['ticket', 'TICKET-1234'],
    ['ticket', 'TICKET-123456'],
  ]);
  t.throws(() => regexDetector({ patterns: ['ok', '(a)\\1'], entity: 'x', maxLength: 8 }), { message: /^patterns\[1\]: .*\\1.*RE2 syntax/ });
  t.throws(() => regexDetector({ patterns: ['(?<=a)b'], entity: 'x', maxLength: 8 }), { message: /^patterns\[0\]/ });
});

test('regex: offsets are UTF-16 offsets past astral characters, and a match across a segment boundary is found once', (t) => {
  const tickets = regexDetector({ patterns: ['T-\\d+'], entity: 'ticket', maxLength: 16 });
  const text = 'é😀 T-12 😀😀 T-7';
  t.deepEqual(found(tickets, text), [
    ['ticket', 'T-12'],
    ['ticket', 'T-7'],
  ]);
  const long = `${'x'.repeat(4090)} T-123456789 ${'y'.repeat(5000)}$ T-5`;
  t.deepEqual(found(tickets, long), [
    ['ticket', 'T-123456789'],
    ['ticket', 'T-5'],
  ]);
  const anchored = regexDetector({ patterns: ['y+$'], entity: 'tail', maxLength: 16 });
  t.deepEqual(anchored.find(`${'y'.repeat(9000)}z`), [], '$ is the text end, not a segment end');
});
