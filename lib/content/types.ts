/**
 * The content view: a request, an answer and a stream event as extensions read them, whatever
 * the wire protocol (otel's GenAI messages, the logging trace line, guardrails). Each protocol
 * kit implements a ContentReader (lib/content/view.ts); the views are built from it lazily,
 * each field on first read.
 *
 * Only text is ever a part: a model name, an id, a tool name, a `type` or `role` value, an
 * object key, a number, a schema, a URL or media data never is, so a plugin that rewrites
 * every part leaves all of those byte for byte.
 */
import type { FinishReason } from '../common/chat.ts';

/** A role, format-free: Gemini's `model` is `assistant`; a message that is only a tool's result (Chat's `tool`, a Responses `function_call_output`) is `tool`. */
export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

/**
 * A string where it sits on the wire. `text` reads it; `set` rewrites that one field in the
 * client's or the upstream's object, nothing around it, and marks the view edited.
 * @throws Error from `set` where edits are not honoured (the view is read-only there)
 */
export interface TextPart {
  readonly type: 'text' | 'reasoning' | 'refusal';
  readonly text: string;
  set(text: string): void;
}

/** A part gw does not read (image, audio, file, a vendor's built-in block): its wire type only, never its data. */
export interface OpaquePart {
  readonly type: 'opaque';
  /** The wire's name for it: `image_url`, `image`, `input_file`, `inlineData`… */
  readonly kind: string;
}

/** A tool call, its arguments as JSON text. */
export interface ToolCallPart {
  readonly type: 'tool_call';
  /** The call id (`tool_calls[].id`, `tool_use.id`, `call_id`, Gemini's `functionCall.id` when sent). */
  readonly id: string | undefined;
  readonly name: string;
  /** JSON text: the string as sent (Chat, Responses), or an object argument (Messages `input`, Gemini `args`) serialized; '' when absent. */
  readonly arguments: string;
  /** Every string value inside the arguments, settable (keys, numbers and booleans never); arguments that are not JSON are one part. */
  argumentTexts(): readonly TextPart[];
}

/** A tool's result the client sends back: where agents carry the files they read. */
export interface ToolResultPart {
  readonly type: 'tool_result';
  /** The call it answers; Gemini's `functionResponse.id`, else the function's name. */
  readonly id: string | undefined;
  /** The result as text: a string result as is, a structured one as its JSON. */
  readonly output: string;
  /** Every string in the result: the string itself, its text blocks, or the string values of a structured one. */
  texts(): readonly TextPart[];
}

export type Part = TextPart | ToolCallPart | ToolResultPart | OpaquePart;

export interface Message {
  readonly role: Role;
  readonly parts: readonly Part[];
}

export interface ToolDefinition {
  readonly name: string;
  /** Its description, settable (a tool definition is request text too); undefined when none. */
  readonly description: TextPart | undefined;
  /** Its JSON schema as sent, read-only: structure is never rewritten. */
  readonly parameters: unknown;
}

/** A request, format-free. Every field is computed on first read, once. */
export interface RequestContent {
  /** Top-level system text: Messages `system`, Responses `instructions`, Gemini `systemInstruction`. Chat's system and developer messages stay in `messages`. */
  readonly instructions: readonly TextPart[];
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  /** Sampling parameters as set (Gemini's `generationConfig`, Messages' `stop_sequences`…): top-level fields only, no message is read. */
  readonly params: {
    readonly temperature?: number;
    readonly topP?: number;
    readonly topK?: number;
    readonly seed?: number;
    readonly frequencyPenalty?: number;
    readonly presencePenalty?: number;
    readonly stop?: readonly string[];
  };
  /**
   * Every text of the request phase, in wire order: instructions, the messages' text and
   * refusal parts, tool-call argument strings and tool results, then tool descriptions.
   * Reasoning parts of earlier turns are left out: Messages checks a thinking block against
   * its signature, so a rewritten one fails the request, and they were checked as answers.
   */
  texts(): readonly TextPart[];
}

/** Why a choice ended: the common reason, and the protocol's own word (what the GenAI conventions record). */
export interface Finish {
  readonly reason: FinishReason;
  readonly native: string;
}

/** A whole answer. */
export interface AnswerContent {
  readonly id: string | undefined;
  readonly model: string | undefined;
  /** One per choice (Chat `choices`, Gemini `candidates`); one for Messages and Responses. A choice's `message` is read on first use. */
  readonly choices: readonly { readonly index: number; readonly finish: Finish | undefined; readonly message: Message }[];
  /** Every text of the response phase, in wire order: text, reasoning and refusal parts, tool-call argument strings. */
  texts(): readonly TextPart[];
}

/** A piece of text, reasoning or refusal one stream event adds to choice `index`. */
export interface TextDelta extends TextPart {
  readonly index: number;
}

/** A piece of a tool call's arguments one stream event adds: JSON text cut anywhere, or a piece of one string argument (Gemini's streamed `partialArgs`). */
export interface ToolArgumentsDelta {
  readonly type: 'tool_arguments';
  /** The choice. */
  readonly index: number;
  /** Which call of the choice: Chat's `tool_calls[].index`, the Messages content block's index, the Responses output index, the Gemini part's index. */
  readonly call: number;
  /** The call's id and name, on the event that names them (Chat's first piece of a call). */
  readonly id: string | undefined;
  readonly name: string | undefined;
  readonly text: string;
  set(text: string): void;
}

/** What one stream event adds. Every field is computed on first read, once. */
export interface EventContent {
  readonly id: string | undefined;
  readonly model: string | undefined;
  /** Text, reasoning, refusal and tool-argument pieces, in order. */
  readonly deltas: readonly (TextDelta | ToolArgumentsDelta)[];
  /** Tool calls the event carries whole: a Gemini `functionCall`; a Messages `content_block_start` tool_use (its arguments then follow as deltas of that block). */
  readonly toolCalls: readonly ToolCallPart[];
  /** Read from this event alone: a Gemini `STOP` after a function call of an earlier event reads as `stop`. */
  readonly finish: readonly (Finish & { readonly index: number })[];
  /** Text the stream sent before and the event repeats whole (Responses' `*.done` and `*.added` events, a lifecycle event's `response.output`): a rewrite must reach it too. */
  readonly repeated: readonly (TextPart | ToolCallPart)[];
  /** Every settable string of the event: deltas, then the tool calls' and the repeated parts' texts. */
  texts(): readonly (TextPart | ToolArgumentsDelta)[];
}
