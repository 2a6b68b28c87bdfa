/**
 * The OpenAPI 3.1 document, generated from the route registry: every route gw serves, with
 * the request schemas that validate it (z.toJSONSchema), so the docs cannot drift from
 * what the gateway accepts. Client formats give their operations' fragments; the rest
 * (admin API, extensions, core) get one from their auth and method.
 */
import { BEARER_ONLY, type KeySource, keyLocation } from '../lib/http/key-sources.ts';
import type { RouteRegistry, RouteSpec } from '../lib/http/routes.ts';
import { errorResponses } from '../lib/openapi-fragments.ts';

const BEARER_SCHEME = { type: 'http', scheme: 'bearer', description: 'A gateway key ([keys.<name>] or created with `gw keys create`)' };
const ADMIN_SCHEME = { type: 'http', scheme: 'bearer', description: 'The admin token' };

/** The name of the security scheme of one key source (component names allow letters, digits, `.`, `-`, `_`). */
function schemeName(source: KeySource): string {
  const location = keyLocation(source);
  return location.in === 'bearer' ? 'bearer' : `${location.in}.${location.name.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

/** One `apiKey` scheme per header or query parameter some route reads a key from, naming the routes' owners. */
function securitySchemes(routes: readonly RouteSpec[]): Record<string, unknown> {
  const owners = new Map<string, Set<string>>();
  for (const route of routes)
    if (route.auth === 'key')
      for (const source of route.keyFrom ?? BEARER_ONLY) (owners.get(source) ?? owners.set(source, new Set()).get(source)!).add(route.owner);
  const schemes: Record<string, unknown> = { bearer: BEARER_SCHEME, admin: ADMIN_SCHEME };
  for (const [source, by] of owners) {
    const location = keyLocation(source);
    if (location.in === 'bearer') continue;
    const where = location.in === 'query' ? 'in the query; never forwarded' : `in ${location.name}`;
    schemes[schemeName(source)] = { type: 'apiKey', in: location.in, name: location.name, description: `A gateway key ${where} (${[...by].join(', ')})` };
  }
  return schemes;
}

/** The security requirement of one operation (undefined: open). */
function securityOf(route: RouteSpec): Array<Record<string, string[]>> | undefined {
  if (route.auth === 'none') return undefined;
  if (route.auth === 'admin') return [{ admin: [] }];
  return (route.keyFrom ?? BEARER_ONLY).map((source) => ({ [schemeName(source)]: [] }));
}

/** A @koa/router (path-to-regexp v8) parameter, `:id` or `*rest`, not an escaped colon (`\:`). */
const PARAM = /(?<!\\)[:*]([A-Za-z0-9_]+)/g;

/** `/v1/models/:id` → `/v1/models/{id}`; `/models/*model\:countTokens` → `/models/{model}:countTokens`. */
function openApiPath(path: string): string {
  return path.replace(PARAM, '{$1}').replace(/\\(.)/g, '$1');
}

/** The document as JSON text. */
export function openApiDocument(routes: RouteRegistry): string {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.routes) {
    if (route.path.startsWith('/docs')) continue;
    const path = openApiPath(route.path);
    const method = route.method.toLowerCase();
    const item = (paths[path] ??= {});
    if (item[method]) continue; // a variant (`when`) of an operation already described
    const params = [...route.path.matchAll(PARAM)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const base: Record<string, unknown> = route.openapi ?? {
      summary: `${route.method} ${path}${route.auth === 'admin' ? ' (admin)' : ''}`,
      responses: { 200: { description: 'OK' }, ...(route.auth === 'none' ? {} : errorResponses(route.auth === 'admin' ? [401, 403] : [401])) },
    };
    const security = securityOf(route);
    item[method] = {
      ...base,
      tags: [route.auth === 'admin' ? 'admin' : route.owner],
      ...(security ? { security } : {}),
      ...(params.length ? { parameters: params } : {}),
    };
  }
  return JSON.stringify({
    openapi: '3.1.0',
    info: {
      title: 'gw',
      version: '1',
      description:
        "An LLM gateway: OpenAI Chat Completions and Responses, Anthropic Messages and the Gemini API in front of every provider; native passthrough where the upstream speaks the client's format, translation everywhere else.",
    },
    components: { securitySchemes: securitySchemes(routes.routes) },
    paths,
  });
}
