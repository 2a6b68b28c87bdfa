/** The generate loop, once for every format: admit → cache → dispatch (native or translated) → answer (docs/plugins.md draws it). */
import type { Context } from 'koa';
import type { z } from 'zod';
import type { RequestContext, RequestFacts } from '../context.ts';
import type { GatewayError } from '../errors.ts';
import type { ChatCompletion, ChatRequest } from '../../lib/common/chat.ts';
import { StreamProgress } from '../../lib/common/estimate.ts';
import type { Hooks } from '../hooks.ts';
import type { CallContext, NativeCall, NativeResult, Provider, SseEvent, StreamItem } from '../../lib/provider.ts';
import type { Admission } from './admit.ts';
import { passthroughFrames, type NativeStep } from './passthrough.ts';
import type { Pipeline } from './pipeline.ts';
import type { GwState } from './state.ts';
import { translatedFrames, type ClientStream } from './translated-frames.ts';
import { callChat, type ChatOutcome, type NativeOutcome, primeNative } from './upstream-calls.ts';

/** What a format reads from a generate request before admitting it. */
export interface GenerateRead {
  /** The body the pipeline carries; default the parsed JSON body. */
  body?: Record<string, unknown>;
  facts: Omit<RequestFacts, 'format' | 'operation'>;
}

/** Per attempt: who is called, with what the format prepared. */
export interface AttemptEnv<S> {
  readonly rc: RequestContext;
  readonly provider: Provider;
  readonly state: S;
}

/** Per answer: the request, what the format prepared, the hooks (for a format that frames chunks itself). */
export interface AnswerEnv<S> {
  readonly ctx: Context;
  readonly rc: RequestContext;
  readonly state: S;
  readonly hooks: Hooks;
}

/** A format's native side: how its own protocol's answers are read when a provider speaks it. */
export interface NativeGenerate<S> {
  /** The native operation (`Provider.native` entry's `op`); default the format's main one. */
  op?(ctx: Context): string | undefined;
  /** Calls the provider's native entry (default `native(body, call, op)`); undefined declines: this attempt is translated. */
  call?(native: NativeCall, body: Record<string, unknown>, call: CallContext, env: AttemptEnv<S>): Promise<NativeResult | undefined>;
  /** A stream's first event as a failure before the stream (an error event, malformed data), else undefined. */
  firstError(ev: SseEvent, provider: string): GatewayError | undefined;
  /** A whole answer's bytes: sets `rc.usage` from them and answers them parsed (onResponse's `value`). @throws UPSTREAM_MALFORMED */
  json(raw: string, env: AnswerEnv<S>): unknown;
  /** The reader of one native stream; it feeds `progress` with the output it forwards (the early-end estimate). */
  stream(env: AnswerEnv<S>, progress: StreamProgress): NativeStep;
}

/** The common-format request a format made, and what its answer needs to know of it. */
export interface ToCommon<X> {
  req: ChatRequest;
  /** What the translation dropped or degraded, logged at debug. */
  warnings?: readonly string[];
  /** Facts of the translation the answer needs (tool names, a thinking switch…). */
  extra: X;
  /** True when `req` is the client's body unchanged: its bytes may go upstream as received. */
  unchanged?: boolean;
}

/** A format that frames common chunks itself (the common format, passed through). */
export interface CommonFrames {
  frames(items: AsyncIterable<StreamItem>, progress: StreamProgress): AsyncGenerator<string, string | undefined>;
  errorFrame(err: GatewayError): string;
}

/** A format's translated side: its request and answers to and from the common format. */
export interface TranslatedGenerate<S, X, E> {
  /** The request in the common format, for `target` (the served model). */
  toCommon(body: Record<string, unknown>, target: { model: string; stream: boolean }, env: AttemptEnv<S>): ToCommon<X> | Promise<ToCommon<X>>;
  /** A whole completion as this format's answer text. `raw`: the upstream's bytes when unchanged. */
  fromCommon(completion: ChatCompletion, raw: string | undefined, env: AnswerEnv<S> & { extra: X }): string | Promise<string>;
  /** The stream: the client's events made by a step and encoded, or frames the format makes itself; one per stream. */
  stream(env: AnswerEnv<S> & { extra: X }): ClientStream<E> | CommonFrames;
  /** Extra response headers of a translated answer (e.g. what could not be translated). */
  headers?(extra: X): Record<string, string> | undefined;
}

/** A stream's framing for the client: content type (default `text/event-stream; charset=utf-8`), keep-alive (default `: ping\n\n`). */
export interface StreamFraming {
  contentType?: string;
  keepAlive?: string;
}

/** A generate route's declaration: `S` the format's per-request state, `X` what a translation tells its answer, `E` its stream event. */
export interface Generate<S = undefined, X = undefined, E = unknown> {
  /** How debug logs name the format (`Messages fields dropped in translation`). */
  readonly label: string;
  /** Validates the body (400 naming the field). */
  readonly schema: z.ZodType;
  read(ctx: Context): GenerateRead;
  /** What names the request's conversation for prompt-cache affinity (`affinityId`, else `affinityPrefix`); called only where a group keeps affinity. */
  affinity?(body: Record<string, unknown>): string | undefined;
  /** After a cache hit answered (e.g. keep the cached answer for this key too). */
  cached?(ctx: Context, rc: RequestContext): Promise<void>;
  /** The format's per-request state, prepared once the request is admitted and not cached. */
  prepare?(a: Admission, ctx: Context): S | Promise<S>;
  /** The body with its output-token cap lowered to `cap`, for an attempt whose served model caps lower (lib/output-caps.ts). */
  capOutput?(body: Record<string, unknown>, cap: number): Record<string, unknown>;
  /** Absent: the format is always translated (or is the common format itself). */
  native?: NativeGenerate<S>;
  translated: TranslatedGenerate<S, X, E>;
  /** Keeps a whole answer as it goes out, onAnswer's edits in (the Responses API stores it), before onResponse; `native`: an upstream of the format made it. */
  keep?(answer: unknown, native: boolean, env: AnswerEnv<S>): Promise<void>;
  /** The stream's framing; default SSE. */
  framing?(ctx: Context): StreamFraming;
}

type Outcome<X> = { native: NativeOutcome } | { translated: ChatOutcome; extra: X };

/** The parsed JSON body the route's body parser left (`{}` for a route without one). */
export function bodyOf(ctx: Context): Record<string, unknown> {
  return (ctx.state as GwState).body?.body ?? {};
}

/** The handler of a generate route of `format`, running `g` through `pipeline`. */
export function generateHandler<S, X, E>(pipeline: Pipeline, hooks: Hooks, format: string, g: Generate<S, X, E>): (ctx: Context) => Promise<void> {
  const dropped = `${g.label} fields dropped in translation`;
  const affinity = g.affinity?.bind(g);
  return async function generate(ctx: Context): Promise<void> {
    const read = g.read(ctx);
    const a = await pipeline.admit(ctx, { schema: g.schema, body: read.body, facts: { ...read.facts, operation: 'generate' }, affinity: affinity });
    if (!a) return;
    const rc = a.rc;
    if (await pipeline.fromCache(ctx, a)) return g.cached?.(ctx, rc);
    const state = (g.prepare ? await g.prepare(a, ctx) : undefined) as S;
    const stream = rc.stream;
    const native = g.native;
    const op = native?.op?.(ctx);

    const capping = g.capOutput !== undefined && rc.maxOutputTokens !== undefined;
    const served = await pipeline.dispatch<Outcome<X>>(a, async (p, target, asked, sent) => {
      const env: AttemptEnv<S> = { rc, provider: p, state };
      let b = asked;
      let call = sent;
      const cap = capping ? a.snap.table.members.get(p.name)?.settings.outputCap?.(target) : undefined;
      if (cap !== undefined && rc.maxOutputTokens! > cap) {
        b = g.capOutput!(asked, cap);
        call = { ...sent, rawBody: undefined };
        if (rc.log.isLevelEnabled('debug')) rc.log.debug({ req: rc.id, provider: p.name, model: target, asked: rc.maxOutputTokens, cap }, 'output cap lowered');
      }
      const entry = native && p.native?.[format];
      if (entry) {
        const r = native.call ? await native.call(entry, b, call, env) : await entry(b, call, op);
        if (r !== undefined) return { native: await primeNative(r, (ev) => native.firstError(ev, p.name)) };
      }
      const t = await g.translated.toCommon(b, { model: target, stream }, env);
      if (t.warnings?.length && rc.log.isLevelEnabled('debug')) rc.log.debug({ req: rc.id, provider: p.name, warnings: t.warnings }, dropped);
      return { translated: await callChat(p, t.req, t.unchanged ? call : { ...call, rawBody: undefined }), extra: t.extra };
    });

    const v = served.value;
    const env = { ctx, rc, state, hooks };
    if ('native' in v) {
      const r = v.native;
      if (r.type === 'json') {
        const value = await native!.json(r.raw, env);
        const keep = g.keep && ((answer: unknown) => g.keep!(answer, true, env));
        return pipeline.finish(ctx, a, { status: r.status, body: r.raw, value, headers: served.headers, contentType: r.contentType, keep });
      }
      const progress = new StreamProgress();
      const reader = native!.stream(env, progress);
      return pipeline.stream(ctx, a, {
        ...g.framing?.(ctx),
        headers: served.headers,
        ready: r.ready,
        frames: passthroughFrames(hooks, rc, format, r.events, reader, a.snap.secrets),
        errorFrame: (err) => reader.errorFrame(err),
        progress,
      });
    }

    const r = v.translated;
    const tenv = { ...env, extra: v.extra };
    const more = g.translated.headers?.(v.extra);
    const headers = more ? { ...served.headers, ...more } : served.headers;
    if (r.type === 'json') {
      rc.usage = r.body.usage ?? undefined;
      const body = await g.translated.fromCommon(r.body, r.raw, tenv);
      // the upstream's bytes sent unchanged: they are the completion already parsed
      const keep = g.keep && ((answer: unknown) => g.keep!(answer, false, env));
      return pipeline.finish(ctx, a, { body, value: body === r.raw ? r.body : undefined, headers, keep });
    }
    const t = g.translated.stream(tenv);
    const progress = new StreamProgress();
    return pipeline.stream(ctx, a, {
      ...g.framing?.(ctx),
      headers,
      ready: r.ready,
      frames: t.frames ? t.frames(r.chunks, progress) : translatedFrames(hooks, rc, format, r.chunks, progress, t),
      errorFrame: (err) => t.errorFrame(err),
      progress,
    });
  };
}
