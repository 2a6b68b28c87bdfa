/**
 * The charges gw estimates where the upstream did not count (docs/design.md "usage fine print"):
 * a stream that ended early pays what was reported plus an estimate of the rest; an answer
 * without usage pays the estimate. Set before onError/onResponse, so every view charges alike.
 */
import type { RequestContext } from '../context.ts';
import { estimateTokens, partialCharge, type StreamProgress } from '../../lib/common/estimate.ts';

/** Sets `rc.partial`, `rc.usage` (the charge) and `rc.usageEstimated` for a stream that ended early (a generated, upstream-answered one). */
export function chargePartial(rc: RequestContext, progress: StreamProgress | undefined): void {
  if (rc.provider === undefined || rc.cacheHit || rc.operation !== 'generate') return;
  // a passthrough may hold its latest report unparsed (Gemini's usageMetadata): it is newer than rc.usage
  const reported = progress?.deferredUsage() ?? rc.usage;
  const charge = partialCharge(reported, progress?.bytes ?? 0, () => estimateTokens(rc.body));
  rc.usage = charge.usage;
  rc.partial = true;
  rc.usageEstimated = charge.estimated;
}

/** Sets `rc.usage` to gw's estimate (prompt estimate + `output`'s UTF-8 bytes / 4) for a generated answer the upstream reported no usage for. */
export function estimateUnreported(rc: RequestContext, output: number | string): void {
  if (rc.usage !== undefined || rc.provider === undefined || rc.cacheHit || rc.operation !== 'generate') return;
  const bytes = typeof output === 'number' ? output : Buffer.byteLength(output, 'utf8');
  rc.usage = partialCharge(undefined, bytes, () => estimateTokens(rc.body)).usage;
  rc.usageEstimated = true;
}
