/**
 * onFinish: the app's boundary tells observers (the request log, provider health) that a
 * gateway request is over, whether it was answered, refused before the pipeline (401, 400,
 * 413, 415) or failed in it. Kept apart from app.ts so the boundary stays one call.
 */
import type { GatewayError } from '../errors.ts';
import type { FinishedRequest, Hooks } from '../hooks.ts';
import type { GwState } from './state.ts';

/**
 * Runs the onFinish taps for one request (nothing when none is tapped). A throwing tap is
 * logged, never thrown: the answer is already decided.
 */
export function notifyFinish(hooks: Hooks, st: GwState, route: string, status: number, failure: GatewayError | undefined, totalMs: number): void {
  if (!hooks.onFinish.isUsed()) return;
  const rc = st.rc;
  const model = rc?.model ?? st.body?.body.model;
  const f: FinishedRequest = {
    id: st.id,
    route,
    time: performance.timeOrigin + st.startedAt,
    totalMs,
    ttfbMs: rc?.firstByteMs || totalMs,
    status,
    key: st.key,
    model: typeof model === 'string' ? model : undefined,
    rc,
    error: failure ?? rc?.error,
    rawBody: st.body?.raw,
    traceId: st.traceId,
    state: rc?.state ?? st.state,
  };
  try {
    hooks.onFinish.call(f);
  } catch (err) {
    st.log.error({ err, req: st.id }, 'onFinish hook failed');
  }
}
