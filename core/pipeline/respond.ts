/**
 * Small helpers of the pipeline: sending a serialized body, turning anything thrown into a
 * GatewayError, and the per-request abort signal.
 */
import type { Context } from 'koa';
import { BODY_TOO_LARGE, CLIENT_CLOSED, INTERNAL } from '../error-codes.ts';
import { INVALID_JSON } from '../../lib/http/body.ts';
import { GatewayError } from '../errors.ts';

/** Content-Type header values as Koa's `ctx.type` resolves them (charset added), by the type given. */
const resolvedTypes = new Map<string, string>();
/** Types an upstream names are few; past this many the rest are resolved per answer. */
const MAX_RESOLVED_TYPES = 64;

/** Sends a body that is already serialized (JSON unless `contentType` says otherwise). */
export function sendText(ctx: Context, status: number, text: string, headers?: Record<string, string>, contentType = 'application/json'): void {
  ctx.status = status;
  // Koa resolves a type through mime-types on every set: resolved once per type here
  const resolved = resolvedTypes.get(contentType);
  if (resolved !== undefined) ctx.set('content-type', resolved);
  else {
    ctx.type = contentType;
    const header = ctx.response.get('content-type');
    if (header && resolvedTypes.size < MAX_RESOLVED_TYPES) resolvedTypes.set(contentType, header);
  }
  if (headers) ctx.set(headers);
  ctx.body = text;
}

/** Any thrown value as a GatewayError; unknown errors become 500 and are logged as bugs. */
export function asGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const e = err as { status?: number; statusCode?: number; type?: string; message?: string; expose?: boolean };
  const status = e?.status ?? e?.statusCode;
  if (status === 413 || e?.type === 'entity.too.large') return BODY_TOO_LARGE();
  if (e?.type === 'entity.parse.failed') return INVALID_JSON(e.message ?? 'malformed');
  if (typeof status === 'number' && status >= 400 && status < 500 && e.expose) return new GatewayError(status, e.message ?? 'bad request');
  return INTERNAL(undefined, { cause: err });
}

/** An AbortSignal that fires when the client's connection closes before we answered. */
export function clientSignal(ctx: Context): AbortSignal {
  const ac = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) ac.abort(CLIENT_CLOSED());
  });
  return ac.signal;
}
