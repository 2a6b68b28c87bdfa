/**
 * The charges gw estimates where the upstream did not count (docs/design.md, "usage fine
 * print", and its decisions): a stream that ended early after its first byte is charged the
 * usage the upstream already reported, completed by an estimate of what came after it; an
 * answer whose upstream reported no usage at all is charged the estimate (prompt estimate +
 * output bytes / 4: lib/common/estimate.ts). Set on the request context before onError or
 * onResponse, so every accounting view charges the same numbers (`chargedUsage(rc)` in
 * core/plugins/helpers.ts).
 */
import type { RequestContext } from '../context.ts';
import { estimateTokens, partialCharge, type StreamProgress } from '../../lib/common/estimate.ts';

/**
 * Sets `rc.partial`, `rc.usage` (the charge) and `rc.usageEstimated` for a stream that ended
 * early; nothing for a request no upstream answered or one that generates nothing.
 */
export function chargePartial(rc: RequestContext, progress: StreamProgress | undefined): void {
  if (rc.provider === undefined || rc.cacheHit || rc.operation !== 'generate') return;
  // a passthrough may hold its latest report unparsed (Gemini's usageMetadata): it is newer than rc.usage
  const reported = progress?.deferredUsage() ?? rc.usage;
  const charge = partialCharge(reported, progress?.bytes ?? 0, () => estimateTokens(rc.body));
  rc.usage = charge.usage;
  rc.partial = true;
  rc.usageEstimated = charge.estimated;
}

/**
 * Sets `rc.usage` to gw's estimate (and `rc.usageEstimated`) for an answer the upstream
 * reported no usage for: the prompt estimate plus the output's UTF-8 bytes / 4 (`output`:
 * the bytes, or the text, measured only then). Nothing when it reported usage, when no
 * upstream answered, or for a request that generates nothing.
 */
export function estimateUnreported(rc: RequestContext, output: number | string): void {
  if (rc.usage !== undefined || rc.provider === undefined || rc.cacheHit || rc.operation !== 'generate') return;
  const bytes = typeof output === 'number' ? output : Buffer.byteLength(output, 'utf8');
  rc.usage = partialCharge(undefined, bytes, () => estimateTokens(rc.body)).usage;
  rc.usageEstimated = true;
}
