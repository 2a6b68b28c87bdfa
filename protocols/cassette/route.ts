/**
 * An exchange's route: `METHOD /path` plus the query parameters that select an operation
 * (`alt=sse`, Azure's `api-version`, Anthropic's `beta`, model-list paging), by an allow-list:
 * any other parameter — a `key=` above all — is dropped.
 */

/** Query parameters kept in a route. */
export const ROUTE_QUERY = new Set(['alt', 'api-version', 'beta', 'limit', 'after_id', 'before_id', 'pageSize', 'pageToken']);

/** `METHOD /path?kept=query` for a request's method and its path with query. */
export function routeOf(method: string, pathWithQuery: string): string {
  const q = pathWithQuery.indexOf('?');
  if (q < 0) return `${method.toUpperCase()} ${pathWithQuery}`;
  const kept: string[] = [];
  for (const [name, value] of new URLSearchParams(pathWithQuery.slice(q + 1))) {
    if (ROUTE_QUERY.has(name)) kept.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  return `${method.toUpperCase()} ${pathWithQuery.slice(0, q)}${kept.length ? `?${kept.join('&')}` : ''}`;
}
