/** The route registry: every HTTP route gw serves, as data; the app mounts it, the error boundary reads its shape and metering. */
import type { Context } from 'koa';
import type { GatewayError } from '../../core/errors.ts';
import { type KeySource, keySourceProblem } from './key-sources.ts';

/** How errors on a route are rendered: the client format's error shape. */
export interface ErrorShape {
  /** Format id (`openai-chat`, `anthropic-messages`…). */
  readonly id: string;
  /** The error body, serialized, in this format's shape. */
  errorBody(err: GatewayError): string;
}

/** The OpenAI error shape: admin and core routes, and a request that matched none. */
export const OPENAI_ERRORS: ErrorShape = Object.freeze({
  id: 'openai',
  errorBody: (err: GatewayError) => JSON.stringify(err.toJSON()),
});

export type RouteMethod = 'GET' | 'POST' | 'DELETE' | 'PATCH';

/** One route. */
export interface RouteSpec {
  method: RouteMethod;
  /** A @koa/router path (`/v1/models/:id`). */
  path: string;
  /** `key`: a gateway key (from `keyFrom`); `admin`: the admin token; `none`: open. */
  auth: 'key' | 'admin' | 'none';
  /** Where the key may come from on a `key` route; default `['bearer']`. */
  keyFrom?: readonly KeySource[];
  /** Error shape on this route. */
  errors: ErrorShape;
  /** A gateway request counted in gw_requests_total, under this `route` label (the format's `rc.route`). */
  metered?: string;
  /** Parse a JSON body first (415, 413, 400); `optional`: only when the request has a Content-Type. */
  body?: boolean | 'optional';
  /** Of several routes on one method and path, this one serves when `when` is true (the one without is the default). */
  when?: (ctx: Context) => boolean;
  handler(ctx: Context): unknown;
  /** OpenAPI operation fragment (summary, requestBody, responses…); a default is derived when absent. */
  openapi?: Record<string, unknown>;
  /** Who registered it (core, a format id, an extension name), for error messages. */
  owner: string;
}

/** The routes of one gateway, in registration order. */
export class RouteRegistry {
  readonly routes: RouteSpec[] = [];

  /**
   * Adds a route.
   * @throws Error when the same method and path is registered twice without `when`, or its `keyFrom` holds something that is not a KeySource.
   */
  add(spec: RouteSpec): void {
    const badSource = spec.keyFrom?.map(keySourceProblem).find((problem) => problem !== undefined);
    if (badSource) throw new Error(`route ${spec.method} ${spec.path} of ${spec.owner}: keyFrom: ${badSource}`);
    if (!spec.when) {
      const clash = this.routes.find((r) => r.method === spec.method && r.path === spec.path && !r.when);
      if (clash) throw new Error(`route ${spec.method} ${spec.path} registered twice (by ${clash.owner} and ${spec.owner})`);
    }
    this.routes.push(spec);
  }

  /** Routes grouped by method and path: variants with `when` first, the default last. */
  grouped(): Array<{ method: RouteMethod; path: string; variants: RouteSpec[] }> {
    const groups = new Map<string, { method: RouteMethod; path: string; variants: RouteSpec[] }>();
    for (const r of this.routes) {
      const k = `${r.method} ${r.path}`;
      let g = groups.get(k);
      if (!g) groups.set(k, (g = { method: r.method, path: r.path, variants: [] }));
      g.variants.push(r);
    }
    for (const g of groups.values()) g.variants.sort((a, b) => Number(!a.when) - Number(!b.when));
    return [...groups.values()];
  }
}
