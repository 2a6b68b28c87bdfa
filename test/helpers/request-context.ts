/**
 * A RequestContext built as admission builds one, for unit tests that drive a plugin's taps
 * without a gateway: its content is read by the built-in protocol named `format`.
 */
import { RequestContext } from '../../core/context.ts';
import { keyInfo } from '../../lib/keys.ts';
import { createLogger } from '../../server/log.ts';
import { READERS } from './content-fixtures.ts';

const log = createLogger('error');

/** A non-streaming generate request of `format` for `model` (canonical as sent), from key `default`, with `body`. */
export function requestContext(model: string, body: Record<string, unknown> = { model }, format = 'openai-chat'): RequestContext {
  const content = (READERS as Record<string, (typeof READERS)[keyof typeof READERS] | undefined>)[format];
  return new RequestContext(
    'r',
    { route: 'chat', format, operation: 'generate', model, stream: false },
    keyInfo('default'),
    body,
    '{}',
    model,
    performance.now(),
    log,
    undefined,
    undefined,
    { content, operationName: format === 'gemini' ? 'generate_content' : undefined },
  );
}
