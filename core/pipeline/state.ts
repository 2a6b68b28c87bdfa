/**
 * What the core's middleware leaves on `ctx.state` for the route handlers.
 */
import type { Context } from 'koa';
import type { KeyInfo, RequestContext } from '../context.ts';
import type { Logger } from 'pino';
import type { ParsedBody } from '../../lib/http/body.ts';
import type { RouteSpec } from '../../lib/http/routes.ts';
import type { Snapshot } from '../snapshot.ts';

export type { ParsedBody };

export interface GwState {
  /** Request id (`x-request-id`). */
  id: string;
  /** performance.now() at arrival, ms. */
  startedAt: number;
  /** The runtime snapshot this request uses from start to end. */
  snap: Snapshot;
  /** The gateway key, when the route takes one and the gateway is not open. */
  key: KeyInfo | undefined;
  log: Logger;
  /** The route that matched (error shape, metering). */
  route?: RouteSpec;
  rc?: RequestContext;
  body?: ParsedBody;
  /** Plugin state kept from onArrival (becomes `rc.state`); undefined when nothing tapped it. */
  state?: Map<string | symbol, unknown>;
  /** The request's trace id, when an onArrival tap named it. */
  traceId?: string;
}

/** The gateway key of the request (undefined on an open gateway or a route without one): for a format's own routes (stored state is the key's). */
export function keyOf(ctx: Context): KeyInfo | undefined {
  return (ctx.state as GwState).key;
}

/** The request's id (`x-request-id`), for a format's own routes to echo. */
export function requestIdOf(ctx: Context): string {
  return (ctx.state as GwState).id;
}
