/**
 * A failure after the first byte of a Responses stream: the status line is gone, so the
 * client learns it from events, numbered on from the stream's own `sequence_number`.
 *
 * OpenAI sends an `error` event and then `response.failed` (recorded in vercel/ai's
 * `openai-error.1.chunks.txt`); both matter: the openai SDKs throw on `error`, while Codex
 * ignores `error` and ends the turn with `response.failed`'s `error.message`.
 * @see OpenAI API reference: Responses streaming events › error, Responses streaming events › response.failed
 */
import type { ResponsesResponse, ResponsesStreamEvent } from './types.ts';

/** What went wrong: a GatewayError fits (`status`, `code`, `type`, `param`, `message`). */
export interface StreamFailure {
  message: string;
  status?: number;
  code?: string | null;
  type?: string;
  param?: string | null;
}

/**
 * `error` with `sequence_number = seq` (the spec's flat `code`/`message`/`param`, and the
 * nested `error` object the live API sends), then — when the stream's response is known —
 * `response.failed` with `seq + 1`, `status: "failed"` and `error: {code, message}`. The
 * failed response's `error.code` is `rate_limit_exceeded` for a 429 and `server_error`
 * otherwise: the Response object allows only its own codes there.
 */
export function streamFailureEvents(err: StreamFailure, seq: number, response?: ResponsesResponse): ResponsesStreamEvent[] {
  const code = err.code ?? err.type ?? 'server_error';
  const param = err.param ?? null;
  const out: ResponsesStreamEvent[] = [
    {
      type: 'error',
      code,
      message: err.message,
      param,
      error: { type: err.type ?? 'server_error', code, message: err.message, param },
      sequence_number: seq,
    },
  ];
  if (response) {
    out.push({
      type: 'response.failed',
      response: {
        ...response,
        status: 'failed',
        completed_at: null,
        error: { code: err.status === 429 ? 'rate_limit_exceeded' : 'server_error', message: err.message },
      },
      sequence_number: seq + 1,
    });
  }
  return out;
}
