/**
 * The Response object before any output: ids, timestamps and the request's settings echoed
 * as OpenAI does; both response translators start from it.
 * @see OpenAI API reference: The response object
 */
import { randomBytes } from 'node:crypto';
import type { ToolNames } from './map-tools.ts';
import type { ResponsesRequest, ResponsesResponse } from './types.ts';

/** What the response translators need besides the upstream answer. */
export interface FromChatOptions {
  /** The request body as the client sent it (its settings are echoed). */
  body: ResponsesRequest;
  /** The model the client asked for; echoed so clients see their own name, not an alias target. */
  requestModel: string;
  /** From `responsesToChatRequest`: restores namespaced function names. */
  toolNames: ToolNames;
  /** `resp_…`; minted when absent (the route passes its own when it stores the response). */
  id?: string;
  /** Unix seconds; now when absent. */
  createdAt?: number;
  /** Whether the response is stored; default `body.store ?? true` (OpenAI's default). */
  store?: boolean;
}

/** A fresh Response id: `resp_` + 48 hex digits, OpenAI's shape. */
export function newResponseId(): string {
  return `resp_${randomBytes(24).toString('hex')}`;
}

/** Output item `index`'s id (`msg_…`, `fc_…`, `rs_…`): the response id's random part + the index, no new random draw. */
export function itemId(prefix: 'msg' | 'fc' | 'rs', responseId: string, index: number): string {
  return `${prefix}_${responseId.startsWith('resp_') ? responseId.slice(5) : responseId}${index.toString(16).padStart(2, '0')}`;
}

/**
 * A Response with `status: "in_progress"`, no output, no usage; echoed fields per the README's
 * response table. `tools` as sent, dropped built-ins included (`x-gw-dropped-tools` says what
 * the model did not get); `temperature`/`top_p` null when not sent (the upstream's default is unknown).
 */
export function responseBase(opts: FromChatOptions): ResponsesResponse {
  const b = opts.body;
  const text: ResponsesResponse['text'] = { format: b.text?.format ?? { type: 'text' } };
  if (typeof b.text?.verbosity === 'string') text.verbosity = b.text.verbosity;
  return {
    id: opts.id ?? newResponseId(),
    object: 'response',
    created_at: opts.createdAt ?? Math.floor(Date.now() / 1000),
    status: 'in_progress',
    completed_at: null,
    error: null,
    incomplete_details: null,
    instructions: typeof b.instructions === 'string' ? b.instructions : null,
    max_output_tokens: b.max_output_tokens ?? null,
    model: opts.requestModel,
    output: [],
    parallel_tool_calls: b.parallel_tool_calls ?? true,
    previous_response_id: b.previous_response_id ?? null,
    reasoning: { effort: b.reasoning?.effort ?? null, summary: b.reasoning?.summary ?? null },
    store: opts.store ?? b.store ?? true,
    temperature: b.temperature ?? null,
    text,
    tool_choice: b.tool_choice ?? 'auto',
    tools: b.tools ?? [],
    top_p: b.top_p ?? null,
    truncation: 'disabled',
    usage: null,
    user: b.user ?? null,
    metadata: b.metadata ?? {},
  };
}
