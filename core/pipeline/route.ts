/** The routes a client format declares, and the handler the kernel runs for each. */
import type { Context } from 'koa';
import type { Hooks } from '../hooks.ts';
import type { KeySource } from '../../lib/http/key-sources.ts';
import type { RouteMethod } from '../../lib/http/routes.ts';
import { type Generate, generateHandler } from './generate.ts';
import { type CountTokens, countHandler } from './count.ts';
import { type Embeddings, embedHandler } from './embed.ts';
import type { Pipeline } from './pipeline.ts';
import type { RequestProtocol } from '../context.ts';

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

/** A route served by a handler of the format's own (model lists, stored state…). */
export interface HandlerRoute extends RouteBase {
  handler(ctx: Context): unknown;
  generate?: undefined;
  countTokens?: undefined;
  embeddings?: undefined;
}

/** A route the kernel runs a loop of, for one declaration: generate (generate.ts), count tokens (count.ts) or embeddings (embed.ts). */
export interface DeclaredRoute extends RouteBase {
  // biome-ignore lint/suspicious/noExplicitAny: a declaration of any state, translation facts and event types; its own module types it
  generate?: Generate<any, any, any>;
  countTokens?: CountTokens;
  embeddings?: Embeddings;
  handler?: undefined;
}

/** A route a client format serves (see lib/http/routes.ts). */
export type FormatRoute = HandlerRoute | DeclaredRoute;

/** The handler of `route` of a format speaking `protocol`, its loop run through `pipeline`. Built once, at registration. */
export function handlerFor(
  route: FormatRoute,
  pipeline: Pipeline,
  hooks: Hooks,
  protocol: RequestProtocol & { readonly label?: string },
): (ctx: Context) => unknown {
  if (route.generate) return generateHandler(pipeline, hooks, protocol.id, route.generate);
  if (route.countTokens) return countHandler(pipeline, protocol, route.countTokens);
  if (route.embeddings) return embedHandler(pipeline, protocol, protocol.label ?? protocol.id, route.embeddings);
  if (route.handler) return route.handler;
  throw new Error(`route ${route.method} ${route.path}: declare a handler, generate, countTokens or embeddings`);
}
