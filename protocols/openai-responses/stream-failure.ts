/**
 * A failure after the first byte of a Responses stream, as OpenAI sends it: `error`, then
 * `response.failed`. Both matter: the openai SDKs throw on `error`, Codex ends the turn on
 * `response.failed`.
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
 * `error` at `seq` (flat fields as the spec says, nested `error` as the live API sends), then,
 * when the response is known, `response.failed` at `seq + 1` (code `rate_limit_exceeded` or
 * `server_error`: the Response object allows only its own codes).
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
