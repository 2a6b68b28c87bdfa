/**
 * A RequestContext built as admission builds one, for unit tests that drive a plugin's taps
 * without a gateway.
 */
import { RequestContext } from '../../core/context.ts';
import { keyInfo } from '../../lib/keys.ts';
import { createLogger } from '../../server/log.ts';

const log = createLogger('error');

/** A non-streaming generate request of `format` for `model` (canonical as sent), from key `default`, with `body`. */
export function requestContext(model: string, body: Record<string, unknown> = { model }, format = 'openai-chat'): RequestContext {
  return new RequestContext(
    'r',
    { route: 'chat', format, operation: 'generate', model, stream: false },
    keyInfo('default'),
    body,
    '{}',
    model,
    performance.now(),
    log,
  );
}
