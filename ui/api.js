// The admin API as the console uses it. The admin token lives in sessionStorage (this tab
// only, gone when it closes) and travels in the Authorization header, never in a URL.
// Every number the pages show comes from these calls.

const TOKEN = 'gw.adminToken';

export const token = {
  get: () => sessionStorage.getItem(TOKEN),
  set: (t) => sessionStorage.setItem(TOKEN, t),
  clear: () => sessionStorage.removeItem(TOKEN),
};

/** An answer that was not 2xx: `status` (0 = gw unreachable), gw's message, code and the field it names (`param`). */
export class ApiError extends Error {
  constructor(status, message, code, param) {
    super(message);
    this.status = status;
    this.code = code;
    this.param = param;
  }
}

let onUnauthorized = () => {};
/** Called when the token stops being accepted (401) after sign-in. */
export function whenUnauthorized(fn) {
  onUnauthorized = fn;
}

/**
 * One admin call. Resolves with the parsed JSON (undefined for 204); rejects with ApiError.
 * `optional`: a 404 route_not_found (an extension that is not enabled) resolves with null.
 */
export async function call(method, path, { body, optional, auth = token.get(), quiet } = {}) {
  const headers = { accept: 'application/json' };
  if (auth) headers.authorization = `Bearer ${auth}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit' });
  } catch {
    throw new ApiError(0, `cannot reach gw at ${location.origin}`, 'unreachable');
  }
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (res.ok) return json;
  const err = json?.error ?? {};
  if (res.status === 404 && err.code === 'route_not_found' && optional) return null;
  const e = new ApiError(
    res.status,
    typeof err.message === 'string' ? err.message : `HTTP ${res.status}`,
    err.code,
    typeof err.param === 'string' ? err.param : undefined,
  );
  if (res.status === 401 && !quiet) onUnauthorized(e);
  return Promise.reject(e);
}

const qs = (params) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};

/**
 * Checks a token before keeping it: resolves when it is the admin token, else rejects with
 * an ApiError whose message says what is wrong, in words for a person.
 */
export async function signIn(candidate) {
  try {
    await call('GET', '/v1/admin/keys', { auth: candidate, quiet: true });
  } catch (e) {
    if (e.status === 401) throw new ApiError(401, `The admin token was refused: ${e.message}. Use admin_token from the gateway config.`, e.code);
    if (e.status === 403) throw new ApiError(403, 'That is a gateway key, not the admin token. Use admin_token from the gateway config.', e.code);
    throw e;
  }
  token.set(candidate);
}

export const api = {
  keys: () => call('GET', '/v1/admin/keys').then((r) => r.data),
  /** Creates a key with `{name, ...settings}`; the answer carries the secret once. */
  createKey: (settings) => call('POST', '/v1/admin/keys', { body: settings }),
  /** Changes a key's settings: a JSON merge patch (null unsets, tags merge tag by tag). */
  patchKey: (name, patch) => call('PATCH', `/v1/admin/keys/${encodeURIComponent(name)}`, { body: patch }),
  /** New secret; the previous one stays valid `grace_seconds` (0: ends at once). */
  rotateKey: (name, graceSeconds) => call('POST', `/v1/admin/keys/${encodeURIComponent(name)}/rotate`, { body: { grace_seconds: graceSeconds } }),
  revokeKey: (name) => call('DELETE', `/v1/admin/keys/${encodeURIComponent(name)}`),
  providers: () => call('GET', '/v1/admin/providers').then((r) => r.data),
  createProvider: (p) => call('POST', '/v1/admin/providers', { body: p }),
  deleteProvider: (name) => call('DELETE', `/v1/admin/providers/${encodeURIComponent(name)}`),
  models: () => call('GET', '/v1/admin/models').then((r) => r.data),
  /** Lifetime usage entries, or null without the usage extension. */
  usage: () => call('GET', '/v1/usage', { optional: true }),
  /** Usage series ({bucket, group_by, from, to}), or null without the usage extension. */
  usageSeries: (q) => call('GET', `/v1/usage${qs(q)}`, { optional: true }),
  /** Latency percentiles per model/provider ({bucket: minute|hour|day, group_by, from, to}), or null without the usage extension. */
  latencySeries: (q) => call('GET', `/v1/usage${qs({ ...q, metrics: 'latency' })}`, { optional: true }),
  budget: () => call('GET', '/v1/budget', { optional: true }),
  /** Every recorded budget period of every key ({key, period, period_start, resets_at, spent_usd}), or null without the budget extension. */
  budgetHistory: () => call('GET', '/v1/budget?history=true', { optional: true }),
  /** Recent alerts, webhooks and rules, or null without the alerts extension. */
  alerts: (q) => call('GET', `/v1/alerts${qs(q ?? {})}`, { optional: true }),
  budgetSeries: (q) => call('GET', `/v1/budget${qs(q)}`, { optional: true }),
  rateLimits: () => call('GET', '/v1/rate_limit', { optional: true }),
  /** Request log entries (newest first), or null without the request_log extension. */
  requests: (q) => call('GET', `/v1/requests${qs(q)}`, { optional: true }),
  /** MCP servers with their state, tools and last 5 minutes of calls. */
  mcpServers: () => call('GET', '/v1/admin/mcp-servers').then((r) => r.data),
  /** One MCP server, with a stdio server's last stderr lines. */
  mcpServer: (name) => call('GET', `/v1/admin/mcp-servers/${encodeURIComponent(name)}`),
  createMcpServer: (s) => call('POST', '/v1/admin/mcp-servers', { body: s }),
  deleteMcpServer: (name) => call('DELETE', `/v1/admin/mcp-servers/${encodeURIComponent(name)}`),
  /** Recent traces ({trace_id, limit}), or null without the otel extension. */
  traces: (q) => call('GET', `/v1/otel/spans${qs(q)}`, { optional: true }),
};
