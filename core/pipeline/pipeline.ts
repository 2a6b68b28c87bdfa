/**
 * The request pipeline as client formats see it: admit, fromCache, dispatch (retries,
 * fallbacks, affinity), finish or stream. A generate route runs it through generate.ts.
 */
import type { Context } from 'koa';
import type { RequestProtocol } from '../context.ts';
import type { PipelineHost } from './host.ts';
import { dispatch, type Dispatched } from '../dispatch.ts';
import type { CallContext, Provider } from '../../lib/provider.ts';
import { admit, type Admission, type AdmitInput } from './admit.ts';
import { finish, type Answer } from './finish.ts';
import { observeAttempt } from './observe-attempt.ts';
import { pumpStream, type StreamAnswer } from './stream.ts';
import { yieldIfLarge } from '../../lib/turns.ts';

/** One attempt on one provider: the body and call context are re-targeted to `model` on a fallback. */
export type Attempt<T> = (provider: Provider, model: string, body: Record<string, unknown>, call: CallContext) => Promise<T>;

/** The outcome of dispatch: the value, who answered, and the headers every proxied answer carries. */
export interface Served<T> extends Dispatched<T> {
  /** `x-request-id`, `x-gw-provider`, `x-gw-attempts` and what hooks asked for (`rc.responseHeaders`). */
  headers: Record<string, string>;
}

export interface Pipeline {
  /** See admit.ts. undefined: an onRequest tap answered already. */
  admit(ctx: Context, input: AdmitInput): Promise<Admission | undefined>;
  /** Answers from cache when the request is cacheable and a tap has it; true when answered. */
  fromCache(ctx: Context, a: Admission): Promise<boolean>;
  /** Calls providers until one answers (see core/dispatch.ts for retries and fallbacks). */
  dispatch<T>(a: Admission, attempt: Attempt<T>): Promise<Served<T>>;
  /** onResponse, then the answer. */
  finish(ctx: Context, a: Admission, answer: Answer): Promise<void>;
  /** Streams frames to the client (see stream.ts). */
  stream(ctx: Context, a: Admission, s: StreamAnswer): Promise<void>;
}

/** The pipeline for one client format, speaking `protocol`. */
export function createPipeline(gw: PipelineHost, protocol: RequestProtocol): Pipeline {
  const hooks = gw.hooks;
  return {
    admit: (ctx, input) => admit(gw, ctx, protocol, input),
    async fromCache(ctx, a) {
      const rc = a.rc;
      if (!rc.cacheable || !hooks.onCacheLookup.isUsed()) return false;
      const hit = await hooks.onCacheLookup.promise(rc);
      if (hit === undefined) return false;
      rc.cacheHit = true;
      await finish(gw, ctx, rc, { body: hit.body, headers: hit.headers });
      return true;
    },
    async dispatch<T>(a: Admission, attempt: Attempt<T>): Promise<Served<T>> {
      const rc = a.rc;
      const key = a.plan.affinity;
      const routing = a.snap.config.routing;
      const pinned = key === undefined ? undefined : await gw.affinity.pick(key, a.plan.group, routing);
      const t0 = performance.now();
      let d: Dispatched<T>;
      try {
        d = await dispatch(
          a.snap.table,
          a.plan,
          a.call.signal,
          async (p, model, retry) => {
            // counted here, per attempt, so a request whose every attempt failed keeps its count (request log)
            rc.attempts++;
            // an attempt translates the body: a task of its own for a large one (lib/turns.ts)
            const turn = yieldIfLarge(rc.rawBody);
            if (turn) await turn;
            const fallback = model !== rc.canonicalModel;
            const body = fallback && 'model' in a.body ? { ...a.body, model } : a.body;
            const call = fallback ? { ...a.call, rawBody: undefined } : a.call;
            if (!hooks.onUpstreamStart.isUsed() && !hooks.onUpstreamEnd.isUsed()) return attempt(p, model, body, call);
            return observeAttempt(hooks, rc, p, model, retry, (extra) => attempt(p, model, body, extra ? { ...call, upstreamHeaders: extra } : call));
          },
          pinned,
        );
      } finally {
        // failures too (every attempt failed, a timeout): their wait is the upstream's, not gw's
        rc.upstreamMs += performance.now() - t0;
      }
      rc.provider = d.provider.name;
      rc.servedModel = d.model;
      // the member that answered is the conversation's from now on (a fallback model's is not)
      if (key !== undefined && d.model === a.plan.model) gw.affinity.record(key, rc.provider, routing);
      if (rc.log.isLevelEnabled('debug'))
        rc.log.debug({ req: rc.id, provider: rc.provider, model: rc.servedModel, attempts: rc.attempts, affinity: affinityLog(key, pinned) }, 'dispatched');
      const headers = { 'x-request-id': rc.id, 'x-gw-provider': rc.provider, 'x-gw-attempts': String(d.attempts), ...rc.responseHeaders };
      return { ...d, headers };
    },
    finish: (ctx, a, answer) => finish(gw, ctx, a.rc, answer),
    stream: (ctx, a, s) => pumpStream(gw, ctx, a.rc, a.call.signal, s, (err) => a.snap.table.members.get(a.rc.provider!)?.failed(err), a.snap.secrets),
  };
}

/** How the debug log tells the affinity outcome: undefined (none), `kept` (the conversation's member was tried first), `new`. */
function affinityLog(key: string | undefined, pinned: unknown): string | undefined {
  return key === undefined ? undefined : pinned === undefined ? 'new' : 'kept';
}
