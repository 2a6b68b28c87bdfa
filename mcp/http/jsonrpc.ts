/**
 * Errors on `/mcp` in MCP's own shape: a JSON-RPC error object `{jsonrpc, id, error: {code,
 * message, data}}` with the HTTP status of gw's error. Used for what the endpoint refuses
 * itself and, as the route's error shape, for what the app refuses before it (a bad key: 401
 * with gw's usual message; a body that is not JSON: 415/400; too large: 413). `data.code` is
 * gw's error code.
 */
import type { Context } from 'koa';
import { defineError, type GatewayError } from '../../core/errors.ts';
import type { ErrorShape } from '../../lib/http/routes.ts';

/** The JSON-RPC code of a gw error on this route, by gw code, else by HTTP status class. */
const RPC_CODE: Readonly<Record<string, number>> = {
  mcp_header_mismatch: -32020,
  mcp_session_not_found: -32001,
  invalid_json: -32700,
};

export const HEADER_MISMATCH = defineError<string>('mcp_header_mismatch', 400, (m) => `Header mismatch: ${m}`);
export const NO_SESSION_HEADER = defineError<void>(
  'mcp_session_required',
  400,
  'Bad Request: Mcp-Session-Id header is required (send initialize first, or the 2026-07-28 _meta envelope)',
);
export const SESSION_NOT_FOUND = defineError<void>('mcp_session_not_found', 404, 'Session not found');
export const FORBIDDEN_ORIGIN = defineError<string>(
  'mcp_origin_not_allowed',
  403,
  (o) => `Origin '${o}' may not call this gateway's MCP endpoint (add it to [mcp] allowed_origins)`,
  { logMessage: "the request's Origin may not call the MCP endpoint" },
);
export const UNKNOWN_SERVER = defineError<string>('mcp_server_not_found', 404, (name) => `no MCP server '${name}'`);

function body(err: GatewayError, id: unknown): string {
  const code = RPC_CODE[err.code ?? ''] ?? (err.status === 400 || err.status === 413 || err.status === 415 ? -32600 : -32000);
  const safeId = typeof id === 'string' || typeof id === 'number' ? id : null;
  return JSON.stringify({ jsonrpc: '2.0', id: safeId, error: { code, message: err.message, data: { type: err.type, code: err.code } } });
}

/** The route's error shape (core/app.ts renders every error on `/mcp` with it). */
export const MCP_ERRORS: ErrorShape = Object.freeze({ id: 'mcp', errorBody: (err: GatewayError) => body(err, null) });

/** Answers `ctx` with `err` as a JSON-RPC error for request `id`. */
export function jsonRpcError(ctx: Context, err: GatewayError, id: unknown): void {
  ctx.status = err.status;
  ctx.type = 'application/json';
  if (err.headers) ctx.set(err.headers);
  ctx.body = body(err, id);
}
