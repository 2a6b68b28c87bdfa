/**
 * The two framings of `:streamGenerateContent`: Server-Sent Events with `?alt=sse` (what
 * @google/genai and Gemini CLI ask for), and without it one JSON array whose elements
 * arrive one by one. Each function returns the exact text to write; nothing is re-parsed.
 *
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 * @see https://cloud.google.com/apis/docs/system-parameters (`alt`)
 */
import type { GatewayError } from '../../../core/errors.ts';
import { toGoogleError } from './google-error.ts';
import type { GenerateContentResponse } from './types.ts';

/** `data: <json>\r\n\r\n`, CRLF as Google's servers send it. */
export function encodeSseResponse(res: GenerateContentResponse): string {
  return `data: ${JSON.stringify(res)}\r\n\r\n`;
}

/**
 * An error after the first byte, SSE framing: one `data: {"error": {…}}` event (clients,
 * @google/genai included, throw on an event whose `error.code` is an HTTP status); the
 * stream then ends.
 */
export function encodeSseError(err: GatewayError): string {
  return `data: ${JSON.stringify(toGoogleError(err))}\r\n\r\n`;
}

/**
 * The JSON-array framing: `[` before the first element, `,\r\n` between elements, `]` at
 * the end, so the whole body is one JSON array of responses. One instance per stream.
 * Keep-alives, if any, must be JSON whitespace (e.g. `\n`), never SSE comments.
 */
export class JsonArrayFraming {
  #open = false;
  #closed = false;

  /** One element. */
  frame(res: GenerateContentResponse): string {
    return this.element(JSON.stringify(res));
  }

  /** One element already serialized (a passthrough's event data, unchanged). */
  element(json: string): string {
    if (this.#open) return `,\r\n${json}`;
    this.#open = true;
    return `[${json}`;
  }

  /** The closing bracket (`[]` for a stream without elements). Idempotent: `''` the second time. */
  end(): string {
    if (this.#closed) return '';
    this.#closed = true;
    return this.#open ? ']' : '[]';
  }

  /**
   * An error after the first byte: Google's error object as the last element, then `]`, so
   * the body stays valid JSON and a client reading it finds the error where the next
   * response would be.
   */
  error(err: GatewayError): string {
    if (this.#closed) return '';
    this.#closed = true;
    const json = JSON.stringify(toGoogleError(err));
    return this.#open ? `,\r\n${json}]` : `[${json}]`;
  }
}
