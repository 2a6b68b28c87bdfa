/** What the pipeline needs from the gateway running it (a narrow view: the kernel does not depend on server/). */
import type { GatewayError } from '../errors.ts';
import type { Hooks } from '../hooks.ts';
import type { RequestContext } from '../context.ts';
import type { AffinityTable } from '../../lib/resilience/affinity.ts';
import type { InflightLimiter } from './inflight.ts';

/** The request metrics the kernel records (the host's Prometheus registry implements them). */
export interface RequestMetrics {
  /** A stream's first byte goes to the client now. */
  streamOpened(rc: RequestContext): void;
  /** The stream ended (completed, failed or the client left). */
  streamClosed(): void;
  /** One finished gateway request, `totalMs` in ms (`rc` undefined before admission; `failure` before its response started). */
  request(route: string, rc: RequestContext | undefined, status: number, failure: GatewayError | undefined, totalMs: number): void;
}

export interface PipelineHost {
  readonly hooks: Hooks;
  readonly metrics: RequestMetrics;
  /** `max_parallel_requests` of virtual keys. */
  readonly inflight: InflightLimiter;
  /** The gateway's clock, epoch ms: a request is priced at the dated price in force now. */
  readonly clock: () => number;
  /** Conversations' members (prompt-cache affinity), across snapshots. */
  readonly affinity: AffinityTable;
}
