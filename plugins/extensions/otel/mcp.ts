/**
 * MCP tools/call spans, as the GenAI MCP semantic conventions name them (the constants of
 * `@opentelemetry/semantic-conventions` 1.45.0 `incubating`, never spelled here): the server
 * span `tools/call {tool}` as the client called it, the upstream attempt's client span
 * `tools/call {tool}` under the server's own name, each with `mcp.method.name`,
 * `gen_ai.tool.name`, `gen_ai.operation.name = execute_tool` and, when known, the session,
 * the protocol revision and the JSON-RPC id. A tool that answered `isError: true` is
 * `error.type = tool_error`, as the conventions ask.
 */
import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  MCP_METHOD_NAME_VALUE_TOOLS_CALL,
} from '@opentelemetry/semantic-conventions/incubating';
import { MCP_CALL, type McpCall } from 'gw/plugin';

export { MCP_METHOD_NAME_VALUE_TOOLS_CALL as TOOLS_CALL };

/** The tools/call a request's state describes, when it is one. */
export function mcpCallOf(state: ReadonlyMap<string | symbol, unknown> | undefined): McpCall | undefined {
  return state?.get(MCP_CALL) as McpCall | undefined;
}

/** Adds the conventions' attributes of a tools/call to `a`; `tool` is the name the span is about (the client's or the server's own). */
export function mcpAttributes(a: Attributes, call: McpCall, tool: string): void {
  a[ATTR_MCP_METHOD_NAME] = MCP_METHOD_NAME_VALUE_TOOLS_CALL;
  a[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL;
  a[ATTR_GEN_AI_TOOL_NAME] = tool;
  if (call.sessionId !== undefined) a[ATTR_MCP_SESSION_ID] = call.sessionId;
  if (call.protocolVersion !== undefined) a[ATTR_MCP_PROTOCOL_VERSION] = call.protocolVersion;
  if (call.requestId !== undefined) a[ATTR_JSONRPC_REQUEST_ID] = String(call.requestId);
}
