/**
 * The HTTP app: one error boundary (request id, one snapshot, provider keys redacted, the
 * error in the route's shape, metrics, log), then the route registry, each route behind its
 * auth and body parsing. The work happens in the pipeline and the plugins.
 */
import { randomUUID } from 'node:crypto';
import Koa, { type Context, type Next } from 'koa';
import { Router } from '@koa/router';
import type { Logger } from 'pino';
import { METHOD_NOT_ALLOWED, METHOD_NOT_IMPLEMENTED, ROUTE_NOT_FOUND } from './error-codes.ts';
import { type GatewayError, shouldRetry } from './errors.ts';
import { authenticate, requireAdmin } from '../lib/http/auth.ts';
import { BEARER_ONLY, KeyReader } from '../lib/http/key-sources.ts';
import { jsonBody } from '../lib/http/body.ts';
import { notifyArrival } from './pipeline/arrival.ts';
import { notifyFinish } from './pipeline/notify-finish.ts';
import { asGatewayError } from './pipeline/respond.ts';
import { redactError } from '../lib/redact.ts';
import { cutText } from '../lib/cut-text.ts';
import type { PipelineHost } from './pipeline/host.ts';
import type { GwState } from './pipeline/state.ts';
import type { Snapshot } from './snapshot.ts';
import { notifyError } from './pipeline/stream.ts';
import { OPENAI_ERRORS, type RouteRegistry, type RouteSpec } from '../lib/http/routes.ts';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A request line logs the path to this many characters: the client chose it (a Gemini route's model is in it). */
const LOGGED_PATH_MAX_CHARS = 512;

/** The `Allow` header koa-router set, kept on the JSON error. */
function allowHeader(ctx: Context): Record<string, string> | undefined {
  const allow = ctx.response.get('allow');
  return allow ? { allow } : undefined;
}

/** What the app needs from the gateway serving it (server/gateway.ts implements it). */
export interface AppHost extends PipelineHost {
  /** The snapshot new requests take (a reload swaps it). */
  readonly snapshot: Snapshot;
  readonly routes: RouteRegistry;
  /** Epoch ms, for key expiry. */
  readonly clock: () => number;
  readonly log: Logger;
}

/** Builds the Koa app for a gateway. */
export function createApp(gw: AppHost): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  const router = new Router();
  const body = jsonBody(() => gw.snapshot.config.max_body_bytes);

  for (const group of gw.routes.grouped()) {
    const chains = group.variants.map((r) => ({ r, run: chain(r) }));
    const handler = async (ctx: Context) => {
      for (const c of chains) {
        if (c.r.when && !c.r.when(ctx)) continue;
        (ctx.state as GwState).route = c.r;
        return c.run(ctx);
      }
    };
    router.register(group.path, [group.method], handler);
  }

  /** A route's auth, body parsing and handler as one function. */
  function chain(r: RouteSpec): (ctx: Context) => Promise<unknown> {
    const keys = r.auth === 'key' ? new KeyReader(r.keyFrom ?? BEARER_ONLY) : undefined;
    return async (ctx) => {
      const st = ctx.state as GwState;
      if (r.metered !== undefined) notifyArrival(gw.hooks, ctx, st, r.metered, r.path);
      if (keys) st.key = authenticate(ctx, st.snap.keys, st.snap.config.admin_token, keys, gw.clock);
      else if (r.auth === 'admin') requireAdmin(ctx, st.snap.keys, st.snap.config.admin_token);
      if (r.body === true || (r.body === 'optional' && ctx.get('content-type'))) await body(ctx);
      return r.handler(ctx);
    };
  }

  app.use(async function boundary(ctx: Context, next: Next) {
    const st = ctx.state as GwState;
    // one snapshot for the whole request: a reload in the middle of it is not seen
    st.snap = gw.snapshot;
    const incoming = ctx.get('x-request-id');
    st.id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    st.startedAt = performance.now();
    st.log = gw.log;
    const info = gw.log.isLevelEnabled('info');
    if (info) gw.log.info({ req: st.id, method: ctx.method, path: cutText(ctx.path, LOGGED_PATH_MAX_CHARS) }, 'request');
    let failure: GatewayError | undefined;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw ROUTE_NOT_FOUND({ method: ctx.method, path: ctx.path });
      // koa-router answers these in text/plain: gw answers JSON errors like everywhere else
      if (ctx.status === 405) throw METHOD_NOT_ALLOWED({ method: ctx.method, path: ctx.path }, { headers: allowHeader(ctx) });
      if (ctx.status === 501 && !st.route) throw METHOD_NOT_IMPLEMENTED(ctx.method.slice(0, 20), { headers: allowHeader(ctx) });
    } catch (err) {
      const ge = asGatewayError(err);
      // an upstream's text quoting a provider key is redacted before any hook, log or answer sees it
      redactError(ge, st.snap.secrets);
      failure = ge;
      if (ge.status === 500) gw.log.error({ err, req: st.id }, 'internal error');
      if (st.rc) {
        st.rc.status = ge.status;
        await notifyError(gw, st.rc, ge);
      }
      // the key's in-flight slot is free before the error goes out
      const freed = st.rc && gw.inflight.release(st.rc);
      if (freed) await freed;
      if (!ctx.headerSent && ctx.writable) {
        ctx.status = ge.status;
        ctx.type = 'application/json';
        ctx.set('x-request-id', st.id);
        const retry = shouldRetry(ge);
        if (retry !== undefined) ctx.set('x-should-retry', retry);
        if (ge.headers) ctx.set(ge.headers);
        ctx.body = (st.route?.errors ?? OPENAI_ERRORS).errorBody(ge);
      }
    }
    // a whole answer is written after this: its slot is free before the client has it
    // (streams gave theirs back before their terminator; this is a no-op for them)
    const freed = st.rc && gw.inflight.release(st.rc);
    if (freed) await freed;
    // a stream's pump is awaited by its route: this runs after the last byte, streams included
    const metered = st.route?.metered;
    if (metered !== undefined || info) {
      const rc = st.rc;
      const status = rc?.status || failure?.status || ctx.status;
      const ms = performance.now() - st.startedAt;
      if (metered !== undefined) {
        gw.metrics.request(metered, rc, status, failure, ms);
        notifyFinish(gw.hooks, st, metered, status, failure, ms);
      }
      if (info) gw.log.info({ req: st.id, status, ms: Math.round(ms * 100) / 100, model: rc?.model, provider: rc?.provider }, 'response');
    }
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
