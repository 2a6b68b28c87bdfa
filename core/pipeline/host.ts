/**
 * What the pipeline needs from the gateway running it: the hooks and the metrics. (A
 * narrow view, so the pipeline does not depend on the whole gateway.)
 */
import type { Hooks } from '../hooks.ts';
import type { GatewayMetrics } from '../metrics/metrics.ts';

export interface PipelineHost {
  readonly hooks: Hooks;
  readonly metrics: GatewayMetrics;
}
