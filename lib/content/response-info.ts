/** What onResponse taps see of an answer (core/hooks.ts): its text, its object when gw parsed it anyway, its content view. */
import { Edits } from './parts.ts';
import type { AnswerContent } from './types.ts';
import { answerContent, type ContentReader, READ_ONLY } from './view.ts';

/** What onResponse sees: a whole answer's text, and its object when gw parsed it anyway. */
export class ResponseInfo {
  /** Every stream's: no body (its chunks went through onChunk). */
  static readonly STREAM: ResponseInfo = new ResponseInfo(undefined, undefined, undefined);
  /** Serialized response body as sent to the client (non-streaming only). */
  readonly body: string | undefined;
  /** `body` as an object when gw parsed it anyway (read it instead of parsing `body`; never change it), else undefined. */
  readonly value: unknown;
  private readonly reader: ContentReader | undefined;
  private view: AnswerContent | null | undefined = undefined;

  constructor(body: string | undefined, value: unknown, reader: ContentReader | undefined) {
    this.body = body;
    this.value = value;
    this.reader = reader;
  }

  /** The answer read format-free, read-only; undefined for a stream, a body that is not JSON, a format without a reader. */
  content(): AnswerContent | undefined {
    if (this.view === undefined) this.view = this.read();
    return this.view ?? undefined;
  }

  private read(): AnswerContent | null {
    if (this.reader === undefined || this.body === undefined) return null;
    let value = this.value;
    if (value === undefined) {
      try {
        value = JSON.parse(this.body);
      } catch {
        return null;
      }
    }
    return answerContent(this.reader, value, READ_ONLY);
  }
}

/** An answer opened to onAnswer's edits: its writable view, the object it reads, and the edit state. */
export interface OpenAnswer {
  readonly view: AnswerContent;
  readonly value: unknown;
  readonly edits: Edits;
}

/** `body` (parsed once unless `value` is at hand) as a writable view; undefined for a format without a reader or a body that is not JSON. */
export function openAnswer(reader: ContentReader | undefined, body: string, value: unknown): OpenAnswer | undefined {
  if (reader === undefined) return undefined;
  let object = value;
  if (object === undefined) {
    try {
      object = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  const edits = new Edits(true);
  return { view: answerContent(reader, object, edits), value: object, edits };
}
