/**
 * onArrival: the app tells observers (a tracer) that a gateway request arrived, before
 * auth and its body, so a trace can start at the real arrival and every answer (a 401
 * included) can name it. Kept apart from app.ts so the route chain stays one call.
 */
import type { Context } from 'koa';
import type { ArrivingRequest, Hooks } from '../hooks.ts';
import type { GwState } from './state.ts';

/**
 * Runs the onArrival taps for one request (nothing when none is tapped): `state` then
 * becomes the request's plugin state and `traceId` its trace. A throwing tap is logged,
 * never thrown: observing a request must not fail it.
 */
export function notifyArrival(hooks: Hooks, ctx: Context, st: GwState, route: string, path: string): void {
  if (!hooks.onArrival.isUsed()) return;
  const state = new Map<string | symbol, unknown>();
  st.state = state;
  const a: ArrivingRequest = {
    id: st.id,
    route,
    method: ctx.method,
    path,
    headers: ctx.headers,
    time: performance.timeOrigin + st.startedAt,
    state,
    traceId: undefined,
    setHeader: (name, value) => ctx.set(name, value),
  };
  try {
    hooks.onArrival.call(a);
  } catch (err) {
    st.log.error({ err, req: st.id }, 'onArrival hook failed');
  }
  st.traceId = a.traceId;
}
