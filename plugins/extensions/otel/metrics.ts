/**
 * The GenAI metrics, named and bucketed as the conventions specify them (semantic-conventions
 * v1.41.0, "Semantic conventions for generative AI metrics"): gw is a GenAI client towards its
 * upstreams (operation duration, token usage, per attempt) and a GenAI server towards its
 * clients (time to first token, time per output token, request duration, per request).
 */
import {
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  METRIC_GEN_AI_SERVER_REQUEST_DURATION,
  METRIC_GEN_AI_SERVER_TIME_PER_OUTPUT_TOKEN,
  METRIC_GEN_AI_SERVER_TIME_TO_FIRST_TOKEN,
} from '@opentelemetry/semantic-conventions/incubating';
import { DeltaHistogram } from './histograms.ts';

// the conventions' ExplicitBucketBoundaries for each instrument
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0];
const TPOT_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5];

/** The instruments gw records into (histograms.ts: aggregated by gw, exported by the SDK's reader). */
export class GenAiMetrics {
  readonly operationDuration: DeltaHistogram;
  readonly tokenUsage: DeltaHistogram;
  readonly timeToFirstToken: DeltaHistogram;
  readonly timePerOutputToken: DeltaHistogram;
  readonly requestDuration: DeltaHistogram;

  constructor() {
    this.operationDuration = new DeltaHistogram(
      METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
      'GenAI operation duration (each upstream attempt)',
      's',
      DURATION_BUCKETS,
    );
    this.tokenUsage = new DeltaHistogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE, 'Number of input and output tokens used', '{token}', TOKEN_BUCKETS);
    this.timeToFirstToken = new DeltaHistogram(
      METRIC_GEN_AI_SERVER_TIME_TO_FIRST_TOKEN,
      'Time to generate first token for successful responses',
      's',
      TTFT_BUCKETS,
    );
    this.timePerOutputToken = new DeltaHistogram(
      METRIC_GEN_AI_SERVER_TIME_PER_OUTPUT_TOKEN,
      'Time per output token generated after the first token for successful responses',
      's',
      TPOT_BUCKETS,
    );
    this.requestDuration = new DeltaHistogram(
      METRIC_GEN_AI_SERVER_REQUEST_DURATION,
      'Generative AI server request duration such as time-to-last byte',
      's',
      DURATION_BUCKETS,
    );
  }

  /** Every instrument, for the producer. */
  all(): DeltaHistogram[] {
    return [this.operationDuration, this.tokenUsage, this.timeToFirstToken, this.timePerOutputToken, this.requestDuration];
  }
}
