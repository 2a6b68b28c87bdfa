/**
 * The SDK client transport for one upstream server's settings: streamable HTTP, the old
 * HTTP+SSE transport, or a child process over stdio (its stderr piped, so the last lines
 * are kept: stderr.ts). Only the headers of the server's section go upstream: never a gw key,
 * never a client's `mcp-protocol-version` (the SDK sends the version this upstream negotiated).
 */
import type { Stream } from 'node:stream';
import { type FetchLike, SSEClientTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpServerConfig } from '../../lib/config/mcp-schema.ts';

/** A transport and, for a child process, its stderr. */
export interface BuiltTransport {
  transport: Transport;
  stderr: Stream | null;
}

/** Where a streamable HTTP transport resumes an upstream session instead of starting one. */
export interface Resume {
  sessionId: string;
  protocolVersion: string | undefined;
}

/** `fetch`, but the transport's GET (its notification stream) answered 405 without asking the server: the SDK then does without it. */
const noListen =
  (fetch: FetchLike): FetchLike =>
  (url, init) =>
    (init?.method ?? 'GET').toUpperCase() === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetch(url, init);

/**
 * A new transport for `s` on `fetch` (fetch.ts). `resume` (streamable HTTP only) continues an
 * upstream session another instance started; `listen` false opens no notification stream (a
 * client session's own upstream session needs none: list changes come through the server's
 * shared connection).
 */
export function buildTransport(s: McpServerConfig, fetch: FetchLike, resume?: Resume, listen = true): BuiltTransport {
  if (s.transport === 'stdio') {
    const t = new StdioClientTransport({
      command: s.command!,
      args: s.args ?? [],
      // the SDK's short list of safe variables (PATH, HOME…): gw's own environment holds secrets
      env: { ...getDefaultEnvironment(), ...s.env },
      cwd: s.cwd,
      stderr: 'pipe',
    });
    return { transport: t, stderr: t.stderr };
  }
  const url = new URL(s.url!);
  const requestInit: RequestInit = { headers: { ...s.headers } };
  if (s.transport === 'sse') return { transport: new SSEClientTransport(url, { requestInit, fetch }), stderr: null };
  return {
    transport: new StreamableHTTPClientTransport(url, {
      requestInit,
      sessionId: resume?.sessionId,
      protocolVersion: resume?.protocolVersion,
      fetch: listen ? fetch : noListen(fetch),
      // gw reconnects the whole server itself (connection.ts): the transport's own GET-stream retries would race it
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
    }),
    stderr: null,
  };
}
