/**
 * The MCP gateway's error catalog (core/errors.ts `defineError`). A tools/call that fails is
 * one of these in the request log (`error_code`) and in onError, while the client gets it in
 * MCP's own shape (a JSON-RPC error, http/jsonrpc.ts); the admin API answers them in the
 * OpenAI shape like the rest of `/v1/admin`.
 */
import { defineError } from '../core/errors.ts';

/** No tool by that name in the catalog the key sees. The client cannot tell it from a denied one. */
export const TOOL_NOT_FOUND = defineError<string>('mcp_tool_not_found', 404, (name) => `Unknown tool: ${name}`, {
  logMessage: 'no such tool in the catalog',
});
/** The tool exists, the key's `mcp_tools` does not cover it (logged as such; the client sees TOOL_NOT_FOUND's answer). */
export const TOOL_DENIED = defineError<{ key: string; name: string }>('mcp_tool_denied', 404, (p) => `key '${p.key}' may not use tool '${p.name}'`);
/** The server is down (missed pings, crashed, unreachable): its tools are hidden until it is back. */
export const SERVER_DOWN = defineError<{ server: string; why: string }>(
  'mcp_server_down',
  503,
  (p) => `MCP server '${p.server}' is down (${p.why}); gw reconnects by itself`,
  { upstream: true },
);
/** The upstream failed: its connection, a malformed answer. */
export const UPSTREAM_FAILED = defineError<{ server: string; why: string }>('mcp_upstream_error', 502, (p) => `MCP server '${p.server}' failed: ${p.why}`, {
  upstream: true,
});
/** The upstream took longer than its `timeout_seconds`. */
export const UPSTREAM_TIMEOUT = defineError<{ server: string; seconds: number }>(
  'mcp_upstream_timeout',
  504,
  (p) => `MCP server '${p.server}' did not answer within ${p.seconds} s`,
  { upstream: true },
);
/** The upstream answered the call with a JSON-RPC error (invalid arguments…): passed to the client as it came. */
export const TOOL_REFUSED = defineError<{ server: string; code: number; message: string }>(
  'mcp_tool_refused',
  400,
  (p) => `MCP server '${p.server}' refused the call (${p.code}): ${p.message}`,
  { logMessage: (p) => `MCP server '${p.server}' refused the call (${p.code})` },
);
/** The server's `max_concurrency` calls are in flight (over every instance on a shared store). */
export const CONCURRENCY_LIMIT = defineError<{ server: string; limit: number }>(
  'mcp_concurrency_limit',
  429,
  (p) => `MCP server '${p.server}' has ${p.limit} calls in flight (max_concurrency); retry in a moment`,
  { refusal: 'mcp_concurrency' },
);
/** The client left before the call ended: the upstream call was cancelled. */
export const CALL_CANCELLED = defineError<void>('mcp_call_cancelled', 499, 'the client cancelled the call');

// the admin API (/v1/admin/mcp-servers)
export const SERVER_EXISTS = defineError<{ name: string; where: string }>(
  'mcp_server_exists',
  409,
  (p) => `MCP server '${p.name}' already exists (${p.where})`,
  {
    param: 'name',
  },
);
export const SERVER_NOT_FOUND = defineError<string>('mcp_server_not_found', 404, (name) => `no MCP server '${name}'`);
export const SERVER_IN_FILE = defineError<{ name: string; file: string }>(
  'defined_in_config_file',
  409,
  (p) => `MCP server '${p.name}' is defined in the config file ${p.file}; remove [mcp_servers.${p.name}] there, then reload (gw reload)`,
);
