/**
 * Webhook checks against a real checker on 127.0.0.1: what gw sends, each verdict applied to
 * the text parts, and every way a checker fails (a hang, open and closed; a 500; an answer
 * that is not JSON, of the wrong shape, or larger than the cap) turned into a block or a
 * recorded pass by `fail`, never a crash and never the texts in the reason.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import type { TextPart } from '../../lib/content/types.ts';
import { compileChecks } from '../../plugins/extensions/guardrails/checks.ts';
import { guardrailsSchema } from '../../plugins/extensions/guardrails/config.ts';
import { checkWebhooks } from '../../plugins/extensions/guardrails/engine.ts';
import { Guardrails } from '../../plugins/extensions/guardrails/guardrails.ts';
import { SECRETS } from '../helpers/guardrails-secrets.ts';

type Handler = (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) => void;

let handler: Handler = (_body, _req, res) => res.end('{"action":"allow"}');
const received: Array<{ body: Record<string, unknown>; headers: IncomingMessage['headers'] }> = [];
const hanging = new Set<ServerResponse>();
let server: Server;
let url: string;

test.before(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      received.push({ body, headers: req.headers });
      handler(body, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/check`;
});

test.after.always(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function parts(...texts: string[]): TextPart[] {
  return texts.map((initial) => {
    let text = initial;
    return {
      type: 'text' as const,
      get text() {
        return text;
      },
      set(next: string) {
        text = next;
      },
    };
  });
}

function webhook(settings: Record<string, unknown>) {
  return compileChecks(
    guardrailsSchema.parse({ checks: { hook: { type: 'webhook', action: 'block', url, headers: { authorization: 'Bearer hook-secret' }, ...settings } } }),
  );
}

const context = { key: 'ci', model: 'gpt-5.4-nano' };

test.serial('gw sends {phase, texts, key, model} with the configured headers; allow changes nothing', async (t) => {
  received.length = 0;
  handler = (_body, _req, res) => res.end('{"action":"allow"}');
  const texts = parts('hello', 'world');
  const verdict = await checkWebhooks(texts, webhook({}), 'request', context);
  t.deepEqual(received[0]!.body, { phase: 'request', texts: ['hello', 'world'], key: 'ci', model: 'gpt-5.4-nano' });
  t.is(received[0]!.headers.authorization, 'Bearer hook-secret');
  t.is(received[0]!.headers['content-type'], 'application/json');
  t.deepEqual(verdict, { outcomes: [], blocked: undefined, failures: [] });
  t.deepEqual(
    texts.map((p) => p.text),
    ['hello', 'world'],
  );
});

test.serial('mask applies the replacements (null keeps a text); block and monitor are outcomes; monitor as the action only records', async (t) => {
  handler = (_body, _req, res) => res.end(JSON.stringify({ action: 'mask', entity: 'customer_name', replacements: [null, 'dear [NAME]'] }));
  const texts = parts('hello', 'dear Ada Lovelace');
  const masked = await checkWebhooks(texts, webhook({ action: 'mask' }), 'response', context);
  t.deepEqual(
    texts.map((p) => p.text),
    ['hello', 'dear [NAME]'],
  );
  t.deepEqual(masked.outcomes, [{ check: 'hook', phase: 'response', action: 'mask', entity: 'customer_name', count: 1 }]);

  const untouched = parts('hello', 'dear Ada Lovelace');
  const monitored = await checkWebhooks(untouched, webhook({ action: 'monitor' }), 'response', context);
  t.is(untouched[1]!.text, 'dear Ada Lovelace');
  t.is(monitored.outcomes[0]!.action, 'monitor');

  handler = (_body, _req, res) => res.end('{"action":"block","entity":"toxicity"}');
  const blocked = await checkWebhooks(parts('x'), webhook({}), 'request', context);
  t.deepEqual(blocked.blocked, { check: 'hook', entity: 'toxicity' });
});

test.serial('a checker that hangs: fail closed blocks, fail open passes and records, each within timeout_ms', async (t) => {
  handler = (_body, _req, res) => {
    hanging.add(res);
  };
  const started = performance.now();
  const closed = await checkWebhooks(parts('x'), webhook({ timeout_ms: 150, fail: 'closed' }), 'request', context);
  t.deepEqual(closed.blocked, { check: 'hook', entity: 'webhook_unavailable' });
  t.deepEqual(closed.failures, ['hook: no answer within 150 ms']);
  const open = await checkWebhooks(parts('x'), webhook({ timeout_ms: 150, fail: 'open' }), 'request', context);
  t.is(open.blocked, undefined);
  t.deepEqual(open.outcomes, [{ check: 'hook', phase: 'request', action: 'monitor', entity: 'webhook_unavailable', count: 1 }]);
  t.true(performance.now() - started < 5000, 'both calls gave up on their timeout');
});

test.serial('a 500, an answer that is not JSON, of the wrong shape or over the size cap is a failure that names why', async (t) => {
  const cases: Array<[Handler, string]> = [
    [
      (_b, _r, res) => {
        res.statusCode = 500;
        res.end('{"error":"boom"}');
      },
      'answered HTTP 500',
    ],
    [(_b, _r, res) => res.end('<html>oops</html>'), 'answered something that is not JSON'],
    [(_b, _r, res) => res.end('[1,2]'), 'answered JSON that is not an object'],
    [(_b, _r, res) => res.end('{"action":"redact"}'), 'answered no action among allow, block, mask, monitor'],
    [(_b, _r, res) => res.end('{"action":"mask","replacements":["only one"]}'), 'answered mask without replacements for each of the 2 texts'],
    [(_b, _r, res) => res.end('{"action":"block","entity":"Bad Entity!"}'), 'answered an entity that is not [a-z0-9_-], 1 to 64'],
    [(_b, _r, res) => res.end(`{"action":"allow","pad":"${'x'.repeat(4096)}"}`), 'answered more than 2048 bytes'],
  ];
  for (const [answer, reason] of cases) {
    handler = answer;
    const texts = parts('secret plans', 'more');
    const verdict = await checkWebhooks(texts, webhook({ fail: 'closed', max_response_bytes: 2048 }), 'request', context);
    t.deepEqual(verdict.failures, [`hook: ${reason}`]);
    t.deepEqual(verdict.blocked, { check: 'hook', entity: 'webhook_unavailable' });
    t.deepEqual(
      texts.map((p) => p.text),
      ['secret plans', 'more'],
    );
  }
});

test.serial('an unreachable checker is a failure too', async (t) => {
  const closedPort = compileChecks(
    guardrailsSchema.parse({ checks: { hook: { type: 'webhook', action: 'block', url: 'http://127.0.0.1:1/check', fail: 'open' } } }),
  );
  const verdict = await checkWebhooks(parts('x'), closedPort, 'request', context);
  t.regex(verdict.failures[0]!, /^hook: unreachable: /);
  t.is(verdict.blocked, undefined);
});

test.serial('local checks run first: a webhook never sees a secret a mask check replaced; a local block skips the call', async (t) => {
  received.length = 0;
  handler = (_body, _req, res) => res.end('{"action":"allow"}');
  const { value } = SECRETS[2]!;
  const guard = new Guardrails(
    guardrailsSchema.parse({
      checks: { secrets: { type: 'secrets', action: 'mask' }, hook: { type: 'webhook', action: 'block', url } },
    }),
  );
  const texts = parts(`token ${value}`);
  const verdict = await guard.check(texts, 'request', guard.checksFor({ name: 'ci' }), context);
  t.deepEqual(received[0]!.body.texts, ['token [SECRET:github-token]']);
  t.is(verdict.outcomes[0]!.entity, 'github-token');

  const blocking = new Guardrails(
    guardrailsSchema.parse({ checks: { secrets: { type: 'secrets', action: 'block' }, hook: { type: 'webhook', action: 'block', url } } }),
  );
  received.length = 0;
  const blocked = await blocking.check(parts(`token ${value}`), 'request', blocking.checksFor(undefined), context);
  t.is(blocked.blocked?.check, 'secrets');
  t.is(received.length, 0);
});
