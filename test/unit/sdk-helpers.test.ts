/**
 * The helpers every translator shares through the SDK: `isObject` (gw/plugin) narrows a JSON
 * value to an object, `failField` (gw/plugin/format) throws the 400 of a field check, naming
 * the field and quoting the value at fault to the client only.
 */
import test from 'ava';
import { GatewayError, isObject, messageForStores } from 'gw/plugin';
import { failField, quoted } from '../../core/error-codes.ts';

test('isObject is true for a JSON object only', (t) => {
  t.true(isObject({}));
  t.true(isObject({ a: 1 }));
  t.true(isObject(Object.create(null)));
  for (const v of [null, undefined, [], [1], 'x', 1, true]) t.false(isObject(v), JSON.stringify(v) ?? 'undefined');
});

test('failField throws a 400 naming the field; the value at fault reaches the client, never the stores', (t) => {
  const err = t.throws(() => failField('messages[2].role', 'must be one of user, assistant', quoted('wizard')), { instanceOf: GatewayError })!;
  t.is(err.status, 400);
  t.is(err.code, 'invalid_request_body');
  t.is(err.param, 'messages[2].role');
  t.is(err.message, 'messages[2].role: must be one of user, assistant (got "wizard")');
  t.is(messageForStores(err), 'messages[2].role: must be one of user, assistant');
  const bare = t.throws(() => failField('tools', 'must be an array'), { instanceOf: GatewayError })!;
  t.is(bare.message, 'tools: must be an array');
  t.is(bare.param, 'tools');
});
