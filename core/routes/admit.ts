/**
 * The start every gateway route shares: validate the body (400 naming the field), build
 * the RequestContext, resolve the model's providers (404), run onRequest (which may
 * refuse by throwing, or answer early).
 */
import type { Context } from 'koa';
import type { z } from 'zod';
import { RequestContext, type RouteName } from '../context.ts';
import { plan, type DispatchPlan, type Dispatched } from '../dispatch.ts';
import type { Gateway } from '../gateway.ts';
import { validate } from '../schemas.ts';
import type { CallContext } from '../provider.ts';
import { clientSignal, sendEarly } from './respond.ts';

/** The parsed body and its exact text, as the body parser left them. */
export interface ParsedBody {
  body: Record<string, unknown>;
  raw: string;
}

/** What the core middleware put on ctx.state. */
export interface GwState {
  id: string;
  startedAt: number;
  key: RequestContext['key'];
  log: RequestContext['log'];
  rc?: RequestContext;
  body?: ParsedBody;
}


/**
 * Admits a request on `route`: its context and dispatch plan, or undefined when an
 * onRequest tap already answered.
 * @throws GatewayError 400 (invalid body), 404 (unknown model), or what an onRequest tap threw.
 */
export async function admit(gw: Gateway, ctx: Context, route: RouteName, schema: z.ZodType): Promise<{ rc: RequestContext; route: DispatchPlan } | undefined> {
  const st = ctx.state as GwState;
  const { body, raw } = st.body!;
  const invalid = validate(schema, body);
  if (invalid) throw invalid;
  const model = body.model as string;
  const rc = new RequestContext(st.id, route, st.key, body, raw, model, gw.table.resolve(model), route !== 'embeddings' && body.stream === true, st.startedAt, st.log);
  st.rc = rc;
  // message content only at trace (-vvv): bodies may hold users' data, never gw's secrets
  if (rc.log.isLevelEnabled('trace')) rc.log.trace({ req: rc.id, route, body: raw }, 'request body');
  const p = plan(gw.table, rc.model, rc.canonicalModel);
  if (gw.hooks.onRequest.isUsed()) {
    const early = await gw.hooks.onRequest.promise(rc);
    if (early) {
      await sendEarly(ctx, rc, early, gw.hooks);
      return undefined;
    }
  }
  return { rc, route: p };
}

/**
 * What a provider gets for an admitted request: the body with the canonical model, and the
 * call context (the client's bytes ride along only when the body is unchanged from them).
 */
export function upstreamCall(ctx: Context, rc: RequestContext): { body: Record<string, unknown>; call: CallContext } {
  const unchanged = rc.canonicalModel === rc.model;
  const signal = clientSignal(ctx);
  return {
    body: unchanged ? rc.body : { ...rc.body, model: rc.canonicalModel },
    call: { signal, log: rc.log, requestId: rc.id, headers: ctx.headers, rawBody: unchanged ? rc.rawBody : undefined, query: ctx.querystring },
  };
}

/**
 * Body and call context for `model`: unchanged for the request's own model, re-targeted for
 * a fallback. Called once per upstream attempt, so it also counts the attempt on `rc` (a
 * request whose every attempt failed keeps its count for the request log).
 */
export function forModel<B extends object>(rc: RequestContext, body: B, call: CallContext, model: string): [B, CallContext] {
  rc.attempts++;
  return model === rc.canonicalModel ? [body, call] : [{ ...body, model }, { ...call, rawBody: undefined }];
}

/**
 * Records who answered (provider, model, attempts) on the context, logs it at debug (-vv),
 * and returns the response headers every proxied answer carries.
 */
export function answered(rc: RequestContext, d: Dispatched<unknown>): Record<string, string> {
  rc.provider = d.provider.name;
  rc.servedModel = d.model;
  rc.attempts = d.attempts;
  if (rc.log.isLevelEnabled('debug')) rc.log.debug({ req: rc.id, provider: rc.provider, model: rc.servedModel, attempts: rc.attempts }, 'dispatched');
  return { 'x-request-id': rc.id, 'x-gw-provider': rc.provider, 'x-gw-attempts': String(d.attempts), ...rc.responseHeaders };
}
