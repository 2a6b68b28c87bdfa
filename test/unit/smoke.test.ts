import test from 'ava';
import { GatewayError } from '../../core/errors.ts';
test('GatewayError renders the OpenAI shape', (t) => {
  const e = new GatewayError(404, 'nope', { code: 'model_not_found', param: 'model' });
  t.deepEqual(e.toJSON(), { error: { message: 'nope', type: 'not_found_error', code: 'model_not_found', param: 'model' } });
});
