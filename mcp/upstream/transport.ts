/**
 * The SDK client transport for one upstream server's settings: streamable HTTP, the old
 * HTTP+SSE transport, or a child process over stdio (its stderr piped, so the last lines
 * are kept: stderr.ts). Only the headers of the server's section go upstream: never a gw key,
 * never a client's `mcp-protocol-version` (the SDK sends the version this upstream negotiated).
 */
import type { Stream } from 'node:stream';
import { SSEClientTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
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

/**
 * fetch for a long-lived transport. The SDK hands every request its transport's one abort
 * signal, and fetch adds a listener to it that only the collector removes: adding to a signal
 * walks its listeners, so each call of a connection kept for hours got slower (it was a third
 * of gw's CPU per call after 10,000 calls). A POST gets a signal of its own, tied to the
 * transport's while it waits for its answer's headers (its body is read at once); a GET (the
 * notification stream, which lives as long as the connection) keeps the transport's.
 */
function ownSignals(url: string | URL, init?: RequestInit): Promise<Response> {
  const outer = init?.signal;
  if (!outer || init.method === 'GET') return fetch(url, init);
  if (outer.aborted) return Promise.reject(outer.reason);
  const ac = new AbortController();
  const abort = () => ac.abort(outer.reason);
  outer.addEventListener('abort', abort, { once: true });
  return fetch(url, { ...init, signal: ac.signal }).finally(() => outer.removeEventListener('abort', abort));
}

/** As ownSignals, but answers the transport's GET (its notification stream) with 405 without asking the server: the SDK then does without it. */
const NO_LISTEN = (url: string | URL, init?: RequestInit): Promise<Response> =>
  init?.method === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : ownSignals(url, init);

/**
 * A new transport for `s`. `resume` (streamable HTTP only) continues an upstream session another
 * instance started; `noListen` opens no notification stream (a client session's own upstream
 * session needs none: list changes come through the server's shared connection).
 */
export function buildTransport(s: McpServerConfig, resume?: Resume, noListen = false): BuiltTransport {
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
  if (s.transport === 'sse') return { transport: new SSEClientTransport(url, { requestInit, fetch: ownSignals }), stderr: null };
  return {
    transport: new StreamableHTTPClientTransport(url, {
      requestInit,
      sessionId: resume?.sessionId,
      protocolVersion: resume?.protocolVersion,
      fetch: noListen ? NO_LISTEN : ownSignals,
      // gw reconnects the whole server itself (connection.ts): the transport's own GET-stream retries would race it
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
    }),
    stderr: null,
  };
}
