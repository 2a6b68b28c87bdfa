/** The routes a client format declares, and the handler the kernel runs for each. */
import type { Context } from 'koa';
import type { Hooks } from '../hooks.ts';
import type { KeySource } from '../../lib/http/key-sources.ts';
import type { RouteMethod } from '../../lib/http/routes.ts';
import { type Generate, generateHandler } from './generate.ts';
import type { Pipeline } from './pipeline.ts';

/** What every route of a client format declares. */
export interface RouteBase {
  method: RouteMethod;
  path: string;
  /** `key` (a gateway key, from `keyFrom`, default the format's) or `none`. */
  auth?: 'key' | 'none';
  keyFrom?: readonly KeySource[];
  /** A gateway request, counted in gw_requests_total under this `route` label (use the route's RequestFacts.route). */
  metered?: string;
  /** Parse a JSON body first. */
  body?: boolean;
  /** Serve only when this answers true (a variant of another route on the same method and path). */
  when?: (ctx: Context) => boolean;
  /** OpenAPI path item fragment for this operation (summary, requestBody, responses…). */
  openapi?: Record<string, unknown>;
}

/** A route served by a handler of the format's own (model lists, stored state, counting…). */
export interface HandlerRoute extends RouteBase {
  handler(ctx: Context): unknown;
  generate?: undefined;
}

/** A generate route: the kernel runs the generate loop (generate.ts) with the format's pieces. */
export interface GenerateRoute extends RouteBase {
  // biome-ignore lint/suspicious/noExplicitAny: a declaration of any state, translation facts and event types; its own module types it
  generate: Generate<any, any, any>;
  handler?: undefined;
}

/** A route a client format serves (see lib/http/routes.ts). */
export type FormatRoute = HandlerRoute | GenerateRoute;

/** The handler of `route` of format `format`, its generate loop run through `pipeline`. Built once, at registration. */
export function handlerFor(route: FormatRoute, pipeline: Pipeline, hooks: Hooks, format: string): (ctx: Context) => unknown {
  return route.generate ? generateHandler(pipeline, hooks, format, route.generate) : route.handler;
}
