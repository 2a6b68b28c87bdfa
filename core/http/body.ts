/**
 * The JSON body parser of routes that take a body (koa-body): 415 for another content type,
 * 413 past `max_body_bytes`, 400 for malformed JSON or a JSON value that is not an object.
 * The exact text is kept beside the parsed body: the cache hashes it, and a body forwarded
 * unchanged is sent as these bytes.
 */
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { INVALID_BODY_ENCODING, INVALID_JSON, NOT_AN_OBJECT, UNSUPPORTED_CONTENT_ENCODING, UNSUPPORTED_MEDIA_TYPE } from '../error-codes.ts';
import { GatewayError } from '../errors.ts';
import type { GwState } from '../pipeline/state.ts';

const UNPARSED = Symbol.for('unparsedBody');

/** Parses the body onto `ctx.state.body`. `limit()` is read once, at the first request. */
export function jsonBody(limit: () => number): (ctx: Context) => Promise<void> {
  let parse: ReturnType<typeof koaBody> | undefined;
  return async (ctx) => {
    if (!ctx.is('application/json', '+json')) throw UNSUPPORTED_MEDIA_TYPE(ctx.get('content-type'));
    parse ??= koaBody({ json: true, urlencoded: false, text: false, multipart: false, jsonLimit: limit(), jsonStrict: true, includeUnparsed: true, patchNode: false });
    try {
      await parse(ctx, async () => {
        const parsed = ctx.request.body as Record<string | symbol, unknown>;
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw NOT_AN_OBJECT();
        // koa-body 8 keeps the bytes on ctx.request.rawBody
        (ctx.state as GwState).body = { body: parsed as Record<string, unknown>, raw: ((ctx.request as { rawBody?: string }).rawBody ?? parsed[UNPARSED]) as string };
        delete parsed[UNPARSED];
      });
    } catch (err) {
      throw bodyParseError(err, ctx.get('content-encoding'));
    }
  };
}

/**
 * koa-body's parse failures carry `status` 400 but neither `expose` nor a `type`, so they
 * would reach the boundary as 500s: malformed JSON, and (jsonStrict) a JSON value that is
 * not an object or array. A Content-Encoding it cannot decode (`inflation` throws a plain
 * Error) or a body that is not what its encoding says (zlib errors) is the client's too.
 */
function bodyParseError(err: unknown, encoding: string): unknown {
  if (err instanceof GatewayError) return err;
  const e = err as { status?: number; message?: string; code?: string; errno?: number };
  if (e?.message?.startsWith('Unsupported Content-Encoding')) return UNSUPPORTED_CONTENT_ENCODING(encoding.slice(0, 40));
  if (typeof e?.code === 'string' && (e.code.startsWith('Z_') || e.code.startsWith('ERR__ERROR') || e.code.startsWith('ERR_ZLIB') || e.code.startsWith('ERR_BROTLI'))) return INVALID_BODY_ENCODING(encoding.slice(0, 40));
  if (e?.status !== 400) return err;
  if (e.message?.startsWith('invalid JSON, only supports')) return NOT_AN_OBJECT();
  return INVALID_JSON(e.message ?? 'malformed');
}
