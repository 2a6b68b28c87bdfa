/** onUpstreamStart / onUpstreamEnd around one upstream attempt: the attempt both taps see, its scope (lib/http/attempt-headers.ts), its outcome. */
import type { RequestContext } from '../context.ts';
import type { Hooks, UpstreamAttempt } from '../hooks.ts';
import { withAttempt } from '../../lib/http/attempt-headers.ts';
import type { Provider } from '../../lib/provider.ts';

/** Runs `run` (the attempt) between the two hooks; a throwing tap is logged, never thrown. @throws what `run` throws */
export async function observeAttempt<T>(
  hooks: Hooks,
  rc: RequestContext,
  provider: Pick<Provider, 'name' | 'kind'>,
  model: string,
  retry: number,
  run: (headers: Readonly<Record<string, string>> | undefined) => Promise<T>,
): Promise<T> {
  const at: UpstreamAttempt = {
    provider: provider.name,
    kind: provider.kind,
    model,
    fallback: model !== rc.canonicalModel,
    number: rc.attempts,
    retry,
    startedAt: performance.now(),
    headers: undefined,
    endedAt: 0,
    outcome: undefined,
    error: undefined,
  };
  if (hooks.onUpstreamStart.isUsed()) tell(() => hooks.onUpstreamStart.call(rc, at), rc);
  const headers = at.headers;
  try {
    const v = await withAttempt({ requestId: rc.id, model, retry, headers }, () => run(headers));
    end(hooks, rc, at, 'ok', undefined);
    return v;
  } catch (err) {
    end(hooks, rc, at, 'error', err);
    throw err;
  }
}

function end(hooks: Hooks, rc: RequestContext, at: UpstreamAttempt, outcome: 'ok' | 'error', error: unknown): void {
  at.endedAt = performance.now();
  at.outcome = outcome;
  at.error = error;
  if (hooks.onUpstreamEnd.isUsed()) tell(() => hooks.onUpstreamEnd.call(rc, at), rc);
}

function tell(fn: () => void, rc: RequestContext): void {
  try {
    fn();
  } catch (err) {
    rc.log.error({ err, req: rc.id }, 'upstream attempt hook failed');
  }
}
