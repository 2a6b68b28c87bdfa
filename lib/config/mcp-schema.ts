/**
 * The MCP gateway's config (docs/mcp.md): `[mcp_servers.<name>]`, one upstream MCP server
 * each, and `[mcp]`, the gateway-wide settings. One schema for the config file and for
 * `POST /v1/admin/mcp-servers`, so a runtime server and a file server mean the same thing.
 *
 *   transport        "http" (streamable HTTP), "sse" (the 2024-11-05 HTTP+SSE transport of old
 *                    servers) or "stdio" (a child process); default "stdio" when `command` is
 *                    given, else "http"
 *   url, headers     http and sse: the server's endpoint and the headers sent with every request
 *                    (`${VAR}` expanded at load, like every config string)
 *   command, args,   stdio: the program, its arguments, its environment (added to a minimal
 *   env, cwd         inherited one: PATH, HOME…) and its working directory
 *   timeout_seconds  longest wait for one upstream answer (a tools/call, a list); default 60
 *   include_tools,   `*` globs over the server's own tool names: which tools the catalog shows
 *   exclude_tools    (include first, then exclude; default: every tool)
 *   cost_per_call    USD charged to the key's budget for each tools/call (default 0)
 *   tool_costs       USD per call of named tools (the server's own names), over cost_per_call
 *   max_concurrency  tools/call in flight at once on this server, across instances on a shared store
 */
import { z } from 'zod';

/** A server name: the `<server>` of `<server>__<tool>` (so it never holds `__` itself, nor ends in `_`). */
export const MCP_SERVER_NAME = /^[a-z0-9_]{1,24}$/;

export const mcpServerNameSchema = z
  .string()
  .regex(MCP_SERVER_NAME, 'expected a server name of 1-24 lower-case letters, digits or "_"')
  .refine((s) => !s.includes('__') && !s.endsWith('_'), 'a server name may not contain "__" or end in "_": tools are named <server>__<tool>');

const glob = z.string().min(1, 'expected a tool name or a pattern with *').max(256);
const usd = z.number({ error: 'expected USD as a number' }).nonnegative('expected USD >= 0').max(1_000_000);
const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, 'expected an HTTP header name');
/** Headers gw sets itself on every upstream request, or that would pass a client's identity on. */
const RESERVED_HEADERS = new Set(['mcp-session-id', 'mcp-protocol-version', 'content-type', 'accept', 'content-length', 'host', 'connection']);

export const TRANSPORTS = ['http', 'sse', 'stdio'] as const;
export type McpTransport = (typeof TRANSPORTS)[number];

/** `[mcp_servers.<name>]` as written (`transport` may be left out). */
export const mcpServerSchema = z
  .strictObject({
    transport: z.enum(TRANSPORTS, { error: `expected one of ${TRANSPORTS.join(', ')}` }).optional(),
    url: z
      .string()
      .regex(/^https?:\/\/[^\s]+$/, 'expected an http:// or https:// URL')
      .max(2048)
      .optional(),
    headers: z.record(headerName, z.string().max(8192)).optional(),
    command: z.string().min(1, 'expected the program to run').max(4096).optional(),
    args: z.array(z.string().max(8192)).max(256).optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'expected an environment variable name'), z.string().max(32768)).optional(),
    cwd: z.string().min(1).max(4096).optional(),
    timeout_seconds: z.number().positive('expected seconds > 0').max(3600).default(60),
    include_tools: z.array(glob).max(1024).optional(),
    exclude_tools: z.array(glob).max(1024).optional(),
    cost_per_call: usd.default(0),
    tool_costs: z.record(z.string().min(1).max(256), usd).optional(),
    max_concurrency: z.number().int('expected a whole number of calls').positive('expected at least 1 call').optional(),
  })
  .superRefine((s, ctx) => {
    const transport = s.transport ?? (s.command !== undefined ? 'stdio' : 'http');
    const misplaced = (fields: readonly (keyof typeof s)[], why: string) => {
      for (const f of fields) if (s[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: why });
    };
    if (transport === 'stdio') {
      if (s.command === undefined) ctx.addIssue({ code: 'custom', path: ['command'], message: 'required for transport "stdio": the program to run' });
      misplaced(['url', 'headers'], 'only for transport "http" or "sse"');
    } else {
      if (s.url === undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: `required for transport "${transport}": the server's URL` });
      misplaced(['command', 'args', 'env', 'cwd'], 'only for transport "stdio"');
      for (const h of Object.keys(s.headers ?? {}))
        if (RESERVED_HEADERS.has(h.toLowerCase())) ctx.addIssue({ code: 'custom', path: ['headers', h], message: 'gw sets this header itself' });
    }
  })
  .transform((s) => ({ ...s, transport: s.transport ?? (s.command !== undefined ? ('stdio' as const) : ('http' as const)) }));

/** One upstream MCP server's settings, defaults applied. */
export type McpServerConfig = z.output<typeof mcpServerSchema>;

/** `[mcp]`: the MCP gateway's own settings. */
export const mcpSettingsSchema = z.strictObject({
  /**
   * Browser origins (`https://app.example`) allowed to call `/mcp`. A request without an
   * `Origin` header (every non-browser client) is always allowed, and so is the gateway's
   * own origin; any other origin gets 403.
   */
  allowed_origins: z
    .array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'expected an origin: scheme://host[:port]'))
    .max(256)
    .default([]),
  /** A 2025-11-25 session without a request for this long ends. */
  session_idle_seconds: z.number().positive().max(86_400).default(1800),
  /** Each upstream is pinged this often; after 3 missed pings in a row it is `down`. */
  ping_interval_seconds: z.number().positive().max(3600).default(15),
  /**
   * The longest full tool name (`<server>__<tool>`), 64 by default (what model APIs accept):
   * a client that adds a prefix of its own (Claude Code's `mcp__gw__`) may want less.
   */
  max_tool_name_length: z.number().int().min(40, 'expected at least 40: a 24-character server name, `__` and a hashed name must fit').max(64).default(64),
});

export type McpSettings = z.output<typeof mcpSettingsSchema>;

/** `[mcp]` when the file has none. */
export const MCP_DEFAULTS: McpSettings = Object.freeze(mcpSettingsSchema.parse({}));
