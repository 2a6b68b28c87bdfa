/**
 * What the pipeline needs from the gateway running it: the hooks, the metrics and the
 * keys' in-flight limiter. (A narrow view, so the pipeline does not depend on the whole
 * gateway.)
 */
import type { Hooks } from '../hooks.ts';
import type { GatewayMetrics } from '../metrics/metrics.ts';
import type { AffinityTable } from '../resilience/affinity.ts';
import type { InflightLimiter } from './inflight.ts';

export interface PipelineHost {
  readonly hooks: Hooks;
  readonly metrics: GatewayMetrics;
  /** `max_parallel_requests` of virtual keys. */
  readonly inflight: InflightLimiter;
  /** Conversations' members (prompt-cache affinity), across snapshots. */
  readonly affinity: AffinityTable;
}
