/**
 * The JSON body parser (koa-body): 415, 413 past `max_body_bytes`, 400 for malformed JSON, a
 * non-object, a `__proto__` key, or nesting past {@link MAX_JSON_DEPTH}. The exact text is kept
 * beside the body: the cache hashes it, an unchanged body is forwarded as these bytes.
 */
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { INVALID_REQUEST } from '../../core/error-codes.ts';
import { defineError, GatewayError } from '../../core/errors.ts';
import { PROTO_NAME } from '../own.ts';
import { yieldIfLarge } from '../turns.ts';

const UNPARSED = Symbol.for('unparsedBody');

/** The parsed body and its exact text, as the body parser left them. */
export interface ParsedBody {
  body: Record<string, unknown>;
  raw: string;
}

/** The media types read as JSON: `application/json` and every `+json` suffix. */
const JSON_TYPES = ['application/json', '+json'];

/**
 * Parses the body onto `ctx.state.body`. `limit()` is read once, at the first request.
 * koa-body lean: JSON only, its media-type check the only one a request pays.
 */
export function jsonBody(limit: () => number): (ctx: Context) => Promise<void> {
  let parse: ReturnType<typeof koaBody> | undefined;
  return async (ctx) => {
    parse ??= koaBody({
      json: true,
      jsonTypes: JSON_TYPES,
      urlencoded: false,
      text: false,
      multipart: false,
      jsonLimit: limit(),
      jsonStrict: true,
      includeUnparsed: true,
      patchNode: false,
    });
    try {
      await parse(ctx, async () => {
        // koa-body read nothing: the body is not JSON (checked again only on this error path)
        if (ctx.request.body === undefined && !ctx.is(JSON_TYPES)) throw UNSUPPORTED_MEDIA_TYPE(ctx.get('content-type'));
        const parsed = ctx.request.body as Record<string | symbol, unknown>;
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw NOT_AN_OBJECT();
        // koa-body 8 keeps the bytes on ctx.request.rawBody
        const raw = ((ctx.request as { rawBody?: string }).rawBody ?? parsed[UNPARSED]) as string;
        delete parsed[UNPARSED];
        // the parse was one task, the walk below is another (lib/turns.ts)
        const turn = yieldIfLarge(raw);
        if (turn) await turn;
        checkDepth(parsed);
        (ctx.state as { body?: ParsedBody }).body = { body: parsed as Record<string, unknown>, raw };
      });
    } catch (err) {
      throw bodyParseError(err, ctx.get('content-encoding'));
    }
  };
}

/** koa-body's parse and decoding failures as the client's 400s (they carry no `expose`, so would be 500s). */
function bodyParseError(err: unknown, encoding: string): unknown {
  if (err instanceof GatewayError) return err;
  const e = err as { status?: number; message?: string; code?: string; errno?: number };
  if (e?.message?.startsWith('Unsupported Content-Encoding')) return UNSUPPORTED_CONTENT_ENCODING(encoding.slice(0, 40));
  if (
    typeof e?.code === 'string' &&
    (e.code.startsWith('Z_') || e.code.startsWith('ERR__ERROR') || e.code.startsWith('ERR_ZLIB') || e.code.startsWith('ERR_BROTLI'))
  )
    return INVALID_BODY_ENCODING(encoding.slice(0, 40));
  if (e?.status !== 400) return err;
  if (e.message?.startsWith('invalid JSON, only supports')) return NOT_AN_OBJECT();
  // the parser (@hapi/bourne under co-body) refuses a `__proto__` key: valid JSON, not accepted
  if (e.message === 'Object contains forbidden prototype property') return INVALID_REQUEST(`request body: ${PROTO_NAME}`);
  return INVALID_JSON(e.message ?? 'malformed');
}

/** Deepest nesting a body may have: recursive walks overflow the stack some thousands of levels down. */
export const MAX_JSON_DEPTH = 128;

/**
 * @throws BODY_TOO_DEEP (400) naming where the body nests past {@link MAX_JSON_DEPTH}.
 * Cost: one visit per object and array element (no visit of string contents), bounded recursion.
 */
export function checkDepth(body: object): void {
  if (!exceeds(body, MAX_JSON_DEPTH)) return;
  const at = pathToDeep(body, MAX_JSON_DEPTH);
  throw BODY_TOO_DEEP({ max: MAX_JSON_DEPTH, at: `${at}…` }, { param: at });
}

function exceeds(v: object, left: number): boolean {
  if (left === 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'object' && x !== null && exceeds(x, left - 1)) return true;
    }
    return false;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'object' && x !== null && exceeds(x, left - 1)) return true;
  }
  return false;
}

/** The first few segments of the path to the first value nested too deep (`tools[0].function.parameters`). */
function pathToDeep(body: object, max: number): string {
  let path = '';
  let v: object = body;
  for (let depth = 0; depth < 4; depth++) {
    let next: [string | number, object] | undefined;
    if (Array.isArray(v)) {
      const i = v.findIndex((x: unknown) => typeof x === 'object' && x !== null && exceeds(x, max - depth - 1));
      if (i >= 0) next = [i, v[i] as object];
    } else {
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (typeof x === 'object' && x !== null && exceeds(x, max - depth - 1)) {
          next = [k, x];
          break;
        }
      }
    }
    if (!next) break;
    path += typeof next[0] === 'number' ? `[${next[0]}]` : path === '' ? next[0].slice(0, 64) : `.${next[0].slice(0, 64)}`;
    v = next[1];
  }
  return path;
}

// what the body parser refuses
export const NOT_AN_OBJECT = defineError('invalid_request_body', 400, 'request body must be a JSON object');
/** A body nested deeper than gw walks and serializes safely (lib/http/body.ts `MAX_JSON_DEPTH`); `param` names where. */
export const BODY_TOO_DEEP = defineError<{ max: number; at: string }>(
  'body_too_deep',
  400,
  (p) => `request body nests objects and arrays deeper than ${p.max} levels (at ${p.at})`,
);
export const UNSUPPORTED_MEDIA_TYPE = defineError<string>(
  'unsupported_media_type',
  415,
  (got) => `expected Content-Type: application/json, got ${got || 'none'}`,
  { logMessage: 'expected Content-Type: application/json' },
);
export const UNSUPPORTED_CONTENT_ENCODING = defineError<string>(
  'unsupported_content_encoding',
  415,
  (got) => `unsupported Content-Encoding '${got}': send the body as is (identity), gzip, deflate or br`,
  { param: 'content-encoding', logMessage: 'unsupported Content-Encoding: send the body as is (identity), gzip, deflate or br' },
);
export const INVALID_BODY_ENCODING = defineError<string>(
  'invalid_body_encoding',
  400,
  (enc) => `the request body is not valid ${enc} data (Content-Encoding: ${enc})`,
  { param: 'content-encoding', logMessage: 'the request body is not valid data of its Content-Encoding' },
);
export const INVALID_JSON = defineError<string>('invalid_json', 400, (detail) => `request body is not valid JSON: ${detail}`, {
  // V8's parse errors quote the text around the fault; where it is, is enough
  logMessage: (detail) => `request body is not valid JSON${/ at position \d+/.exec(detail)?.[0] ?? ''}`,
});
