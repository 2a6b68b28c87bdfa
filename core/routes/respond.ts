/**
 * Small helpers shared by the routes: sending JSON, early (hook) responses and errors in
 * the route's shape, and the per-request abort signal.
 */
import type { Context } from 'koa';
import type { RequestContext } from '../context.ts';
import { GatewayError, messagesErrorType } from '../errors.ts';
import type { EarlyResponse, Hooks } from '../hooks.ts';

/** Sends a JSON body that is already serialized. */
export function sendJson(ctx: Context, status: number, text: string, headers?: Record<string, string>): void {
  ctx.status = status;
  ctx.type = 'application/json';
  if (headers) ctx.set(headers);
  ctx.body = text;
}

/**
 * Sends what an onRequest tap decided. onResponse runs first (with `rc.status` set and no
 * usage) so an earlier tap that reserved something (budget) can release it: every
 * admitted request ends in exactly one of onResponse/onError.
 */
export async function sendEarly(ctx: Context, rc: RequestContext, early: EarlyResponse, hooks: Hooks): Promise<void> {
  rc.status = early.status;
  const text = typeof early.body === 'string' ? early.body : JSON.stringify(early.body);
  if (hooks.onResponse.isUsed()) await hooks.onResponse.promise(rc, { body: text });
  sendJson(ctx, early.status, text, early.headers);
}

/** Any thrown value as a GatewayError; unknown errors become 500 and are logged as bugs. */
export function asGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const e = err as { status?: number; statusCode?: number; type?: string; message?: string; expose?: boolean };
  const status = e?.status ?? e?.statusCode;
  if (status === 413 || e?.type === 'entity.too.large') return new GatewayError(413, 'request body is larger than max_body_bytes', { code: 'body_too_large' });
  if (e?.type === 'entity.parse.failed') return new GatewayError(400, `request body is not valid JSON: ${e.message}`, { code: 'invalid_json' });
  if (typeof status === 'number' && status >= 400 && status < 500 && e.expose) return new GatewayError(status, e.message ?? 'bad request');
  return new GatewayError(500, 'internal error', { type: 'server_error', code: 'internal_error', cause: err });
}

/** Error body in the shape of the route: Messages shape on /v1/messages, OpenAI elsewhere. */
export function errorBody(err: GatewayError, messagesShape: boolean): string {
  if (messagesShape) return JSON.stringify({ type: 'error', error: { type: messagesErrorType(err.status), message: err.message } });
  return JSON.stringify(err.toJSON());
}

/** An AbortSignal that fires when the client's connection closes before we answered. */
export function clientSignal(ctx: Context): AbortSignal {
  const ac = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) ac.abort(new GatewayError(499, 'client closed the connection', { code: 'client_closed' }));
  });
  return ac.signal;
}
