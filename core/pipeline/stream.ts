/**
 * Pumping frames to the client: headers go with the first frame (a failure before it gets a real
 * status, after it the error frame); an early end is charged (partial.ts); waits count as upstream time.
 */
import type { Context } from 'koa';
import type { RequestContext } from '../context.ts';
import type { GatewayError } from '../errors.ts';
import type { StreamProgress } from '../../lib/common/estimate.ts';
import { ResponseInfo, runSeries } from '../hooks.ts';
import type { PipelineHost } from './host.ts';
import { SseWriter } from '../../lib/http/sse-write.ts';
import { redactError, type SecretRedactor } from '../../lib/redact.ts';
import { chargePartial, estimateUnreported } from './partial.ts';
import { chargeCost } from './charge.ts';
import type { GwState } from './state.ts';
import { asGatewayError } from './respond.ts';

/** A streamed answer, as a format hands it to the pipeline. */
export interface StreamAnswer {
  /** Response headers (`x-gw-*` from dispatch, the format's own). */
  headers: Record<string, string>;
  /** Complete frames, in order; its return value is the terminator frame, written after onResponse. */
  frames: AsyncGenerator<string, string | undefined>;
  /** The first item already arrived (primed in dispatch): a failure making it a frame is still pre-stream. */
  ready: boolean;
  /** The frame that tells the client the stream failed after its first byte. */
  errorFrame(err: GatewayError): string;
  /** Default `text/event-stream; charset=utf-8`. */
  contentType?: string;
  /** Written after 15 s of silence; default `: ping\n\n` (an SSE comment). */
  keepAlive?: string;
  /** What the frames carried so far: a stream that ends early is charged from it (lib/common/estimate.ts). */
  progress?: StreamProgress;
}

/**
 * Streams `s.frames` to the client. `upstreamFailed` hears of a failure after the first frame
 * (for the provider's statistics); `secrets` are redacted out of it before onError sees it.
 * @throws the failure before the first frame (nothing was sent yet).
 */
export async function pumpStream(
  gw: PipelineHost,
  ctx: Context,
  rc: RequestContext,
  signal: AbortSignal,
  s: StreamAnswer,
  upstreamFailed: (err: GatewayError) => void,
  secrets: SecretRedactor,
): Promise<void> {
  const frames = s.frames;
  // time awaiting a frame is the upstream's (making a frame of its event is microseconds);
  // when a wait ends in a failure it counts too: 0 while not waiting
  let waitFrom = performance.now();
  // first item already at hand: a failure turning it into a frame is still pre-stream and
  // becomes a normal HTTP error; otherwise headers go out now and keep-alives cover the wait
  let step: IteratorResult<string, string | undefined> | undefined;
  try {
    step = s.ready ? await frames.next() : undefined;
  } finally {
    rc.upstreamMs += performance.now() - waitFrom;
    waitFrom = 0;
  }
  const sse = new SseWriter(ctx.res, s.keepAlive);
  ctx.respond = false;
  rc.status = 200;
  sse.open(s.headers, s.contentType);
  rc.firstByteMs = performance.now() - rc.startedAt;
  gw.metrics.streamOpened(rc);
  /** A frame went out: an early end from here on is charged. */
  let sent = false;
  /** The frames are all out: a failure from here on (onResponse) is not an early end. */
  let ended = false;
  try {
    if (step === undefined) {
      waitFrom = performance.now();
      step = await frames.next();
      rc.upstreamMs += performance.now() - waitFrom;
      waitFrom = 0;
    }
    while (!step.done) {
      const p = sse.write(step.value);
      sent = true;
      if (p) await p;
      waitFrom = performance.now();
      step = await frames.next();
      rc.upstreamMs += performance.now() - waitFrom;
      waitFrom = 0;
    }
    ended = true;
    // a whole stream without usage is charged gw's estimate of it, as one that ended early would be
    estimateUnreported(rc, s.progress?.bytes ?? 0);
    chargeCost(rc, (ctx.state as GwState).snap, gw.clock());
    if (gw.hooks.onResponse.isUsed()) {
      const taps = runSeries(gw.hooks.onResponse, rc, ResponseInfo.STREAM);
      if (taps) await taps;
    }
    // the key's in-flight slot is free before the client can see the end
    const freed = gw.inflight.release(rc);
    if (freed) await freed;
    if (step.value) sse.write(step.value);
  } catch (err) {
    if (waitFrom !== 0) rc.upstreamMs += performance.now() - waitFrom;
    if (sent && !ended) {
      chargePartial(rc, s.progress);
      chargeCost(rc, (ctx.state as GwState).snap, gw.clock());
    }
    if (signal.aborted) {
      rc.status = 499;
      rc.log.info({ req: rc.id }, 'client closed the stream');
      // every admitted request ends in onResponse or onError: extensions release what they hold
      await notifyError(gw, rc, asGatewayError(signal.reason));
    } else {
      const ge = asGatewayError(err);
      redactError(ge, secrets);
      rc.status = ge.status;
      if (ge.status === 500) rc.log.error({ err, req: rc.id }, 'stream failed');
      upstreamFailed(ge);
      await notifyError(gw, rc, ge);
      const freed = gw.inflight.release(rc);
      if (freed) await freed;
      // an upstream error event already forwarded verbatim (a passthrough) is not repeated
      if (!ge.forwarded) sse.write(s.errorFrame(ge));
    }
    await frames.return(undefined).catch(() => undefined);
  } finally {
    sse.end();
    gw.metrics.streamClosed();
  }
}

/** Runs onError taps; a failing tap is logged, never thrown over the original error. */
export async function notifyError(gw: PipelineHost, rc: RequestContext, err: GatewayError): Promise<void> {
  rc.error = err;
  if (!gw.hooks.onError.isUsed()) return;
  try {
    const taps = runSeries(gw.hooks.onError, rc, err);
    if (taps) await taps;
  } catch (e) {
    rc.log.error({ err: e, req: rc.id }, 'onError hook failed');
  }
}
