/**
 * The replay kind's miss: a 502 in the client's error shape naming the cassette, the nearest
 * recording and the first differing JSON path. Never retried: repeating cannot change the cassette.
 */
import { defineError } from 'gw/plugin';
import type { Miss } from './matcher.ts';

export interface MissParams {
  /** The cassette as configured. */
  cassette: string;
  /** The provider that missed. */
  provider: string;
  route: string;
  miss: Miss;
}

function where(p: MissParams, quote: boolean): string {
  const m = p.miss;
  const parts = [`replay_miss: provider ${p.provider} found no recording in cassette ${p.cassette} for ${p.route} (${m.reason})`];
  if (m.nearest) {
    const e = m.nearest.entry;
    const model = e.gw?.model ?? modelOf(e.request.body);
    parts.push(`nearest: ${m.nearest.file}:${m.nearest.line} (${e.id}, ${e.route}${model ? `, model ${model}` : ''}, recorded ${e.time})`);
  }
  if (m.path !== undefined) parts.push(quote ? `first difference at ${m.path}: recorded ${m.recorded}, got ${m.got}` : `first difference at ${m.path}`);
  return parts.join('; ');
}

function modelOf(body: unknown): string | undefined {
  const model = (body as { model?: unknown } | null)?.model;
  return typeof model === 'string' ? model : undefined;
}

/** No recording answers the request (see the file comment). */
export const REPLAY_MISS = defineError<MissParams>('replay_miss', 502, (p) => where(p, true), {
  retry: false,
  logMessage: (p) => where(p, false),
});
