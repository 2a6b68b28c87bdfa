/**
 * A common-format `finish_reason` → the Response `status` and `incomplete_details`.
 * @see OpenAI API reference: The response object › incomplete_details, The chat completion object (`finish_reason`)
 */
import type { FinishReason } from 'gw/plugin';
import type { ResponsesResponse } from './types.ts';

export type StatusInfo = Pick<ResponsesResponse, 'status' | 'incomplete_details'>;

/** `finish_reason` → status; only a known truncation is `incomplete`, which clients report as a failure. */
export function mapStatus(finish: FinishReason | null | undefined): StatusInfo {
  switch (finish) {
    case 'length':
      return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
    case 'content_filter':
    case 'sensitive':
      return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
    default:
      return { status: 'completed', incomplete_details: null };
  }
}
