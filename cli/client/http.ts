/**
 * The management client's HTTP side: one admin-token request to a running gw, every
 * failure turned into one CliError line (unreachable server, refused token, HTTP error).
 * Reads `GW_URL` (default http://127.0.0.1:8080) and `GW_ADMIN_TOKEN` (docs/design.md).
 */
import { CliError } from './errors.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** What a 404 `route_not_found` means for this call (e.g. an extension that is not enabled). */
export interface CallOptions {
  body?: unknown;
  notFound?: string;
}

export interface AdminClient {
  /** The gateway's base address, without a trailing slash. */
  readonly url: string;
  /**
   * Sends one request with the admin token; resolves with the parsed JSON body (undefined for 204).
   * @throws CliError with one line for every failure.
   */
  call<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, opts?: CallOptions): Promise<T>;
}

/**
 * A client from the environment.
 * @throws CliError when GW_ADMIN_TOKEN is unset or GW_URL is not an http(s) URL.
 */
export function adminClient(env: NodeJS.ProcessEnv = process.env): AdminClient {
  const url = (env.GW_URL || DEFAULT_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(url)) throw new CliError(`GW_URL must be an http(s) address like ${DEFAULT_URL} (got '${url}')`);
  const token = env.GW_ADMIN_TOKEN;
  if (!token) throw new CliError('GW_ADMIN_TOKEN is not set: export the admin_token from the gateway config (GW_ADMIN_TOKEN=sk-…)');
  const timeoutMs = 60_000;
  return {
    url,
    async call<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, opts: CallOptions = {}): Promise<T> {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      let res: Response;
      try {
        res = await fetch(url + path, {
          method,
          headers,
          body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        throw new CliError(`cannot reach gw at ${url}: ${transportReason(err)}`);
      }
      const text = await res.text().catch(() => '');
      if (res.ok) return (text ? parseJson(text) : undefined) as T;
      const { message, code } = errorOf(text);
      if (res.status === 401) throw new CliError(`the admin token was refused (HTTP 401): ${message}`);
      if (res.status === 403) throw new CliError(`GW_ADMIN_TOKEN is not the admin token (HTTP 403): ${message}`);
      if (res.status === 404 && code === 'route_not_found' && opts.notFound) throw new CliError(`${opts.notFound} (HTTP 404)`);
      if (res.status === 502 || res.status === 504) throw new CliError(`upstream error (HTTP ${res.status}): ${message}`);
      if (res.status >= 500) throw new CliError(`server error (HTTP ${res.status}): ${message}`);
      throw new CliError(`${message} (HTTP ${res.status})`);
    },
  };
}

/** ECONNREFUSED, ENOTFOUND, "timed out after 60 s"… from a fetch failure. */
function transportReason(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'no answer within 60 s';
  return e.cause?.code ?? e.cause?.message ?? e.message;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`gw answered with something that is not JSON: ${oneLine(text)}`);
  }
}

/** The OpenAI-shape error of a failed response, else the first line of its text. */
function errorOf(text: string): { message: string; code: string | undefined } {
  try {
    const e = (JSON.parse(text) as { error?: { message?: unknown; code?: unknown } }).error;
    if (e && typeof e.message === 'string') return { message: oneLine(e.message), code: typeof e.code === 'string' ? e.code : undefined };
  } catch {
    // not JSON: fall through to the raw text
  }
  return { message: oneLine(text) || '(empty body)', code: undefined };
}

/** Error messages may span lines (config errors list issues); the CLI prints one. */
function oneLine(s: string): string {
  const t = s.trim().replace(/\s*\n\s*/g, '; ');
  return t.length > 500 ? `${t.slice(0, 500)}…` : t;
}
