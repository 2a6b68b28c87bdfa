/**
 * The end of every non-streaming answer: record the status (and gw's usage estimate when
 * the upstream reported none), run onResponse (awaited, so usage, spend and the cache entry
 * are committed before the last byte), then send.
 */
import type { Context } from 'koa';
import { READER, type RequestContext } from '../context.ts';
import { ResponseInfo, runSeries } from '../hooks.ts';
import { openAnswer } from '../../lib/content/response-info.ts';
import { chargeCost, usdText } from './charge.ts';
import type { GwState } from './state.ts';
import type { PipelineHost } from './host.ts';
import { estimateUnreported } from './partial.ts';
import { sendText } from './respond.ts';

/** A whole answer, already serialized. */
export interface Answer {
  /** Default 200. */
  status?: number;
  body: string;
  /** `body` as an object when the caller has it parsed (onResponse's `value`). */
  value?: unknown;
  headers?: Record<string, string>;
  /** Default `application/json`. */
  contentType?: string;
  /** Keeps the answer as it goes out (after onAnswer's edits), before onResponse: the format's `Generate.keep`. */
  keep?(answer: unknown): Promise<void>;
}

/** Runs onAnswer (an upstream's or the cache's answer) and onResponse for `rc`, then sends `answer`. */
export async function finish(gw: PipelineHost, ctx: Context, rc: RequestContext, answer: Answer): Promise<void> {
  const status = answer.status ?? 200;
  rc.status = status;
  let { body, value, headers } = answer;
  // an upstream answer without usage is charged gw's estimate of it (its body is the output, framing and all)
  if (status < 400) estimateUnreported(rc, body);
  chargeCost(rc, (ctx.state as GwState).snap, gw.clock());
  // an answer from an upstream or the cache (one cached for a key another check applies to), never an early answer
  if (status < 400 && rc.operation === 'generate' && (rc.provider !== undefined || rc.cacheHit) && gw.hooks.onAnswer.isUsed()) {
    const open = openAnswer(rc[READER], body, value);
    if (open !== undefined) {
      try {
        await gw.hooks.onAnswer.promise(rc, open.view);
      } catch (err) {
        // the upstream made the answer and bills it though the client never gets it: charged (onError)
        rc.partial = true;
        throw err;
      }
      open.edits.writable = false;
      // edited: serialized once, so the cache, the logs and the client get the same bytes
      if (open.edits.commit()) body = JSON.stringify((value = open.value));
      if (rc.responseHeaders !== undefined) headers = { ...headers, ...rc.responseHeaders };
    }
  }
  if (answer.keep !== undefined && status < 400) await answer.keep(value ?? JSON.parse(body));
  if (gw.hooks.onResponse.isUsed()) {
    const taps = runSeries(gw.hooks.onResponse, rc, new ResponseInfo(body, value, rc[READER]));
    if (taps) await taps;
  }
  // LiteLLM's x-litellm-response-cost convention; none when nothing was charged or nothing prices the model
  if (rc.cost) ctx.set('x-gw-cost-usd', usdText(rc.cost.total));
  sendText(ctx, status, body, headers, answer.contentType);
}
