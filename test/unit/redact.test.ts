/**
 * SecretRedactor (lib/redact.ts): the forms an upstream echoes a provider key in, what it
 * leaves alone, and which errors redactError touches.
 */
import test from 'ava';
import { INVALID_REQUEST } from '../../core/error-codes.ts';
import { UPSTREAM_ERROR } from '../../lib/http/errors.ts';
import { upstreamError } from '../../lib/http/errors.ts';
import { REDACTED, redactError, SecretRedactor } from '../../lib/redact.ts';

const OPENAI = 'sk-proj-abc1XyZ0123456789ABCDEFGHIJKLMNOPwxyz';
const GEMINI = 'AIzaSyAbm-_oW12aAAxNc8FEEh-84QT7o-9r1Ak';
/** Zhipu keys are `<id>.<secret>`: a `.` no token rule would cross. */
const ZHIPU = '0123456789abcdef0123456789abcdef.Zx9yQwErTyUiOpAs';
const r = new SecretRedactor([OPENAI, GEMINI, ZHIPU, 'none', 'EMPTY']);

test('the key whole, after Bearer, inside JSON and quoted by Google', (t) => {
  t.is(r.redact(`Incorrect API key provided: ${OPENAI}.`), `Incorrect API key provided: ${REDACTED}.`);
  t.is(r.redact(`Authorization: Bearer ${OPENAI}`), `Authorization: Bearer ${REDACTED}`);
  t.is(r.redact(JSON.stringify({ error: { message: `bad key ${OPENAI}` } })), JSON.stringify({ error: { message: `bad key ${REDACTED}` } }));
  t.is(
    r.redact(`Permission denied: Consumer 'api_key:${GEMINI}' has been suspended.`),
    `Permission denied: Consumer 'api_key:${REDACTED}' has been suspended.`,
  );
  t.is(r.redact(`key ${ZHIPU} expired`), `key ${REDACTED} expired`);
});

test('masked: a visible head of 4 to 8+ characters, or only the last 4 after a mask', (t) => {
  for (const m of [
    'sk-p****************wxyz',
    'sk-proj****************************************wxyz', // OpenAI: 7+ characters shown
    'sk-proj-abc1***************************wxyz',
    'sk-proj-abc1•••••wxyz',
    'sk-...wxyz', // LiteLLM: the vendor prefix and the last 4
    '****wxyz',
    'sk-pro…wxyz', // gw's own listing mask
    `${OPENAI.slice(0, 20)}…`, // cut by a length limit
  ]) {
    t.is(r.redact(`Incorrect API key provided: ${m}. You can find your API key…`), `Incorrect API key provided: ${REDACTED}. You can find your API key…`, m);
  }
});

test('ordinary text, placeholders and other keys pass unchanged', (t) => {
  const text = "tool_choice none is not valid; EMPTY; ***bold*** and wait... then …; sk-other-0000000000 and sk-proj is the prefix; 'wxyz' alone; AIzaSy";
  t.is(r.redact(text), text);
  t.is(new SecretRedactor(['none', 'x', '']).size, 0);
  t.is(new SecretRedactor(['none']).redact('none'), 'none');
  t.is(new SecretRedactor([]).redact(`a ${OPENAI}`), `a ${OPENAI}`);
});

test('a key with characters JSON or a URL escape is found in those forms too', (t) => {
  const odd = 'k3y"with/slash+plus=';
  const s = new SecretRedactor([odd]);
  t.is(s.redact(`raw ${JSON.stringify({ k: odd })}`), `raw {"k":"${REDACTED}"}`);
  t.is(s.redact(`GET /x?key=${encodeURIComponent(odd)}&a=1`), `GET /x?key=${REDACTED}&a=1`);
});

test("redactError: an upstream's error is redacted in place (message, log message, code, param); gw's own request errors are left alone", (t) => {
  const passed = upstreamError(400, `provider p: bad key ${OPENAI}`, { provider: 'p', code: `c-${OPENAI}`, param: OPENAI });
  redactError(passed, r);
  t.is(passed.message, `provider p: bad key ${REDACTED}`);
  t.is(passed.code, `c-${REDACTED}`);
  t.is(passed.param, REDACTED);
  t.false(passed.logMessage!.includes(OPENAI));

  const failed = UPSTREAM_ERROR(`provider p failed with HTTP 500: ${OPENAI}`, { provider: 'p' });
  redactError(failed, r);
  t.is(failed.message, `provider p failed with HTTP 500: ${REDACTED}`);

  // a 400 about the client's own body is not upstream text: not scanned
  const own = INVALID_REQUEST(`messages[0].content: ${OPENAI}`);
  redactError(own, r);
  t.is(own.message, `messages[0].content: ${OPENAI}`);
});
