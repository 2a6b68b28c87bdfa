/**
 * Charging a stream that ended early after its first byte (docs/design.md, "usage fine
 * print"): the usage the upstream already reported, completed by an estimate of what came
 * after it (core/format/estimate.ts). Set on the request context before onError, so every
 * accounting tap charges the same numbers (`chargeable(rc)` in core/plugins/helpers.ts).
 */
import type { RequestContext } from '../context.ts';
import { estimateTokens, partialCharge, type StreamProgress } from '../format/estimate.ts';

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
