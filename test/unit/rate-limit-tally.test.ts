/**
 * rate_limit's in-memory tally of stream tokens in flight: a request's tokens leave it once.
 * When a later onResponse tap throws after rate_limit settled, onError runs for the same
 * request; it must not take that request's tokens out of the tally a second time (they would
 * come out of other streams still in flight, and tokens_per_minute would admit too much).
 */
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestContext } from '../../core/context.ts';
import { GatewayError } from '../../core/errors.ts';
import { createHooks, ResponseInfo } from '../../core/hooks.ts';
import { ChunkHolder } from '../../core/pipeline/chunk-holder.ts';
import { keyInfo } from '../../lib/keys.ts';
import { createLogger } from '../../server/log.ts';
import { openLevelStore } from '../../plugins/stores/level/level.ts';
import rateLimit from '../../plugins/extensions/rate_limit/index.ts';

test("onError after a settled onResponse does not drop other streams' pending tokens", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-rl-'));
  const root = await openLevelStore(join(dir, 'data'));
  t.teardown(async () => {
    await root.close();
    await rm(dir, { recursive: true, force: true });
  });
  const log = createLogger('error');
  const hooks = createHooks();
  const config = rateLimit.configSchema.parse({ requests_per_minute: 1000, tokens_per_minute: 20 });
  const noRoute = () => undefined;
  await rateLimit.setup({
    name: 'rate_limit',
    config,
    store: root.namespace('ext').namespace('rate_limit'),
    hooks,
    log,
    routes: { get: noRoute, post: noRoute, delete: noRoute } as never,
    gateway: {} as never,
    metrics: { counter: noRoute, gauge: noRoute },
    upstream: { observe: noRoute },
    resolvePath: (path) => path,
    secrets: { scrub: (text) => text, addDetector: noRoute, stored: (text) => text, redactStored: noRoute },
  });
  const rc = () =>
    new RequestContext(
      'r',
      { route: 'chat', format: 'openai-chat', operation: 'generate', model: 'm', stream: true },
      keyInfo('default'),
      { model: 'm', stream: true },
      '{}',
      'm',
      performance.now(),
      log,
    );

  const a = rc();
  const b = rc();
  await hooks.onRequest.promise(a);
  await hooks.onRequest.promise(b);
  for (const r of [a, b]) {
    r.usage = { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 };
    hooks.onChunk.call(r, new ChunkHolder('openai-chat').next(undefined, { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [] }));
  }
  a.provider = 'p';
  a.status = 200;
  await hooks.onResponse.promise(a, ResponseInfo.STREAM); // 10 tokens into the window
  // a later tap failed: the core runs onError for the same request
  await hooks.onError.promise(a, new GatewayError(503, 'store gone', { code: 'store_unavailable' }));
  // window 10 + b's 10 in flight = 20 >= 20: refused
  const err = await t.throwsAsync(hooks.onRequest.promise(rc()));
  t.is((err as GatewayError).code, 'rate_limit_exceeded');
});
