/**
 * The end of every non-streaming answer: record the status, run onResponse (awaited, so
 * usage, spend and the cache entry are committed before the last byte), then send.
 */
import type { Context } from 'koa';
import type { RequestContext } from '../context.ts';
import type { PipelineHost } from './host.ts';
import { sendText } from './respond.ts';

/** A whole answer, already serialized. */
export interface Answer {
  /** Default 200. */
  status?: number;
  body: string;
  headers?: Record<string, string>;
  /** Default `application/json`. */
  contentType?: string;
}

/** Runs onResponse for `rc`, then sends `answer`. */
export async function finish(gw: PipelineHost, ctx: Context, rc: RequestContext, answer: Answer): Promise<void> {
  const status = answer.status ?? 200;
  rc.status = status;
  if (gw.hooks.onResponse.isUsed()) await gw.hooks.onResponse.promise(rc, { body: answer.body });
  sendText(ctx, status, answer.body, answer.headers, answer.contentType);
}
