/**
 * The two framings of `:streamGenerateContent`: Server-Sent Events with `?alt=sse` (what
 * @google/genai and Gemini CLI ask for), and without it one JSON array whose elements
 * arrive one by one. Each function returns the exact text to write; nothing is re-parsed.
 * Follows the Gemini API reference, "models.streamGenerateContent", and Google's "System parameters".
 */
import type { GatewayError } from 'gw/plugin';
import { dataField } from '../../lib/http/sse-write.ts';
import { toGoogleError } from './google-error.ts';
import type { GenerateContentResponse } from './types.ts';

/** `data: <json>\r\n\r\n`, CRLF as Google's servers send it. */
export function encodeSseResponse(res: GenerateContentResponse): string {
  return `data: ${JSON.stringify(res)}\r\n\r\n`;
}

/** An error after the first byte, SSE framing: one `data: {"error": {…}}` event, which Google clients throw on. */
export function encodeSseError(err: GatewayError): string {
  return `data: ${JSON.stringify(toGoogleError(err))}\r\n\r\n`;
}

/** The JSON-array framing, one instance per stream; keep-alives must be JSON whitespace, never SSE comments. */
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

  /** An error after the first byte: Google's error object as the last element, so the body stays valid JSON. */
  error(err: GatewayError): string {
    if (this.#closed) return '';
    this.#closed = true;
    const json = JSON.stringify(toGoogleError(err));
    return this.#open ? `,\r\n${json}]` : `[${json}]`;
  }
}

/** How a stream is framed for the client: the frames, the terminator and the error frame. */
export interface Framing {
  /** One response already serialized. */
  frame(json: string): string;
  /** After the last response (`]`, or nothing for SSE). */
  end(): string | undefined;
  /** A failure after the first byte. */
  error(err: GatewayError): string;
  contentType: string;
  keepAlive: string;
}

/** `?alt=sse`: one event per response, CRLF as Google sends it. */
export function sseFraming(): Framing {
  return {
    frame: (json) => `${dataField(json)}\r\n\r\n`,
    end: () => undefined,
    error: encodeSseError,
    contentType: 'text/event-stream; charset=utf-8',
    keepAlive: ': ping\n\n',
  };
}

/** No `alt`: one JSON array; keep-alives are whitespace, which JSON allows between tokens. */
export function arrayFraming(): Framing {
  const a = new JsonArrayFraming();
  return {
    frame: (json) => a.element(json),
    end: () => a.end(),
    error: (err) => a.error(err),
    contentType: 'application/json; charset=utf-8',
    keepAlive: '\n',
  };
}

/** The framing the request's `alt` query parameter asks for: SSE for `alt=sse`, else the JSON array. One per stream. */
export function framingOf(alt: unknown): Framing {
  return alt === 'sse' ? sseFraming() : arrayFraming();
}

const SSE_HEADERS = { contentType: 'text/event-stream; charset=utf-8', keepAlive: ': ping\n\n' };
const ARRAY_HEADERS = { contentType: 'application/json; charset=utf-8', keepAlive: '\n' };

/** The stream's content type and keep-alive for the framing `alt` asks for, without making a framing. */
export function framingHeaders(alt: unknown): { contentType: string; keepAlive: string } {
  return alt === 'sse' ? SSE_HEADERS : ARRAY_HEADERS;
}
