/**
 * Pumping a stream of SSE frames to the client. Headers are committed only when the first
 * frame is ready (or after one keep-alive period of waiting), so a failure before the
 * first chunk still answers with a real HTTP status. After that, a failure is one SSE
 * error event and the end; a client disconnect aborts the upstream via the signal.
 */
import type { Context } from 'koa';
import type { RequestContext } from '../context.ts';
import type { GatewayError } from '../errors.ts';
import type { Gateway } from '../gateway.ts';
import { SseWriter } from '../http/sse-write.ts';
import { asGatewayError, errorBody } from './respond.ts';

/**
 * Streams `frames` (each a complete SSE frame) to the client. The generator's return value
 * is the terminator frame, written after onResponse has run.
 * @throws the failure before the first frame (nothing was sent yet).
 */
export async function pumpStream(gw: Gateway, ctx: Context, rc: RequestContext, headers: Record<string, string>, signal: AbortSignal, t0: number, frames: AsyncGenerator<string, string | undefined>, messagesShape: boolean, ready: boolean): Promise<void> {
  // first item already at hand (primed in dispatch): a failure turning it into a frame is
  // still pre-stream and becomes a normal HTTP error; otherwise headers go out now and
  // keep-alives cover the wait
  let step = ready ? await frames.next() : undefined;
  rc.upstreamMs = performance.now() - t0;
  const sse = new SseWriter(ctx.res);
  ctx.respond = false;
  rc.status = 200;
  sse.open(headers);
  rc.firstByteMs = performance.now() - rc.startedAt;
  gw.metrics.streamOpened(rc);
  try {
    step ??= await frames.next();
    while (!step.done) {
      const p = sse.write(step.value);
      if (p) await p;
      step = await frames.next();
    }
    if (gw.hooks.onResponse.isUsed()) await gw.hooks.onResponse.promise(rc, { body: undefined });
    if (step.value) sse.write(step.value);
  } catch (err) {
    if (signal.aborted) {
      rc.status = 499;
      rc.log.info({ req: rc.id }, 'client closed the stream');
      // every admitted request ends in onResponse or onError: extensions release what they hold
      await notifyError(gw, rc, asGatewayError(signal.reason));
    } else {
      const ge = asGatewayError(err);
      rc.status = ge.status;
      if (ge.status === 500) rc.log.error({ err, req: rc.id }, 'stream failed');
      await notifyError(gw, rc, ge);
      // an upstream error event already forwarded verbatim (Messages passthrough) is not repeated
      if (!(err as { forwarded?: boolean }).forwarded) sse.write(messagesShape ? `event: error\ndata: ${errorBody(ge, true)}\n\n` : `data: ${errorBody(ge, false)}\n\n`);
    }
    await frames.return(undefined).catch(() => undefined);
  } finally {
    sse.end();
    gw.metrics.streamClosed();
  }
}

/** Runs onError taps; a failing tap is logged, never thrown over the original error. */
export async function notifyError(gw: Gateway, rc: RequestContext, err: GatewayError): Promise<void> {
  rc.error = err;
  if (!gw.hooks.onError.isUsed()) return;
  try {
    await gw.hooks.onError.promise(rc, err);
  } catch (e) {
    rc.log.error({ err: e, req: rc.id }, 'onError hook failed');
  }
}
