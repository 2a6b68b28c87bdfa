/**
 * The start every gateway route shares: validate the body (400 naming the field), build
 * the RequestContext, resolve the model's providers (404), run onRequest (which may
 * refuse by throwing, or answer early).
 */
import type { Context } from 'koa';
import type { z } from 'zod';
import { RequestContext, type RouteName } from '../context.ts';
import { plan, type DispatchPlan } from '../dispatch.ts';
import type { Gateway } from '../gateway.ts';
import { validate } from '../schemas.ts';
import { sendEarly } from './respond.ts';

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

/** Logs at debug (-vv) which provider and model answered and after how many upstream calls. */
export function logDispatched(rc: RequestContext): void {
  if (rc.log.isLevelEnabled('debug')) rc.log.debug({ req: rc.id, provider: rc.provider, model: rc.servedModel, attempts: rc.attempts }, 'dispatched');
}
