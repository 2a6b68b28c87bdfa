/**
 * What a protocol implements to be read format-free (ContentReader), and the three views
 * built from it: each calls the reader for a field on that field's first read and keeps the
 * answer, so a tap that reads `params` never walks the messages, and one that reads an
 * answer's finish reasons builds no part.
 */
import { Edits } from './parts.ts';
import type { AnswerContent, EventContent, Finish, Message, RequestContent, TextPart, ToolArgumentsDelta, ToolDefinition } from './types.ts';

/**
 * A protocol's reader of its own wire shapes. Pure functions of the parsed body, answer or
 * event; parts are built with `textAt`, `toolCall`, `toolResult` and `argumentsDelta`, given
 * the view's `at`. A value of the wrong shape reads as empty, never as an error.
 */
export interface ContentReader {
  /** A request's top-level system text (none for a protocol that keeps it in messages). */
  instructions(body: Record<string, unknown>, at: Edits): readonly TextPart[];
  /** A request's messages, in wire order. */
  messages(body: Record<string, unknown>, at: Edits): readonly Message[];
  /** A request's tool definitions that have a name (built-in tools without one are left out). */
  tools(body: Record<string, unknown>, at: Edits): readonly ToolDefinition[];
  /** A request's sampling parameters: top-level fields only. */
  params(body: Record<string, unknown>): RequestContent['params'];
  /** A whole answer's id, model and choices; no part is built. */
  answer(value: unknown): { readonly id: string | undefined; readonly model: string | undefined; readonly choices: readonly AnswerChoice[] };
  /** The answer's messages, one per choice of {@link answer}, in the same order. */
  answerMessages(value: unknown, at: Edits): readonly Message[];
  /** A stream event's id, model and finish reasons; no part is built. */
  event(value: unknown): Pick<EventContent, 'id' | 'model' | 'finish'>;
  /** What the stream event adds. */
  eventParts(value: unknown, at: Edits): Pick<EventContent, 'deltas' | 'toolCalls' | 'repeated'>;
  /** A cheap test of an event's JSON text: false when it can carry no finish reason (so it need not be parsed for one). */
  readonly finishHint?: RegExp;
}

/** A choice of an answer, as the reader gives it: its index and why it ended. */
export interface AnswerChoice {
  readonly index: number;
  readonly finish: Finish | undefined;
}

/** Nothing: the value of an absent field. */
const NONE: readonly never[] = Object.freeze([]);

/** A request's view: `body` as the reader reads it, each field once, on first read. */
class RequestView implements RequestContent {
  private readonly reader: ContentReader;
  private readonly body: Record<string, unknown>;
  private readonly at: Edits;
  private instructionParts: readonly TextPart[] | undefined = undefined;
  private messageList: readonly Message[] | undefined = undefined;
  private toolList: readonly ToolDefinition[] | undefined = undefined;
  private paramSet: RequestContent['params'] | undefined = undefined;
  private textList: readonly TextPart[] | undefined = undefined;

  constructor(reader: ContentReader, body: Record<string, unknown>, at: Edits) {
    this.reader = reader;
    this.body = body;
    this.at = at;
  }

  get instructions(): readonly TextPart[] {
    return (this.instructionParts ??= this.reader.instructions(this.body, this.at));
  }

  get messages(): readonly Message[] {
    return (this.messageList ??= this.reader.messages(this.body, this.at));
  }

  get tools(): readonly ToolDefinition[] {
    return (this.toolList ??= this.reader.tools(this.body, this.at));
  }

  get params(): RequestContent['params'] {
    return (this.paramSet ??= this.reader.params(this.body));
  }

  texts(): readonly TextPart[] {
    if (this.textList !== undefined) return this.textList;
    const out: TextPart[] = [];
    for (const part of this.instructions) out.push(part);
    for (const message of this.messages) messageTexts(message, false, out);
    for (const tool of this.tools) if (tool.description !== undefined) out.push(tool.description);
    return (this.textList = out);
  }

  toJSON(): { instructions: readonly TextPart[]; messages: readonly Message[] } {
    return { instructions: this.instructions, messages: this.messages };
  }
}

/** A choice of an answer's view: its message read (with every other choice's) on first use. */
class Choice {
  readonly index: number;
  readonly finish: Finish | undefined;
  private readonly view: AnswerView;
  private readonly position: number;

  constructor(choice: AnswerChoice, view: AnswerView, position: number) {
    this.index = choice.index;
    this.finish = choice.finish;
    this.view = view;
    this.position = position;
  }

  get message(): Message {
    return this.view.messageAt(this.position);
  }

  toJSON(): { index: number; finish: Finish | undefined; message: Message } {
    return { index: this.index, finish: this.finish, message: this.message };
  }
}

/** An answer's view. */
class AnswerView implements AnswerContent {
  readonly id: string | undefined;
  readonly model: string | undefined;
  readonly choices: readonly Choice[];
  private readonly reader: ContentReader;
  private readonly value: unknown;
  private readonly at: Edits;
  private messageList: readonly Message[] | undefined = undefined;
  private textList: readonly TextPart[] | undefined = undefined;

  constructor(reader: ContentReader, value: unknown, at: Edits) {
    this.reader = reader;
    this.value = value;
    this.at = at;
    const facts = reader.answer(value);
    this.id = facts.id;
    this.model = facts.model;
    const choices: Choice[] = [];
    for (let i = 0; i < facts.choices.length; i++) choices.push(new Choice(facts.choices[i]!, this, i));
    this.choices = choices;
  }

  /** The message of the choice at `position`. */
  messageAt(position: number): Message {
    this.messageList ??= this.reader.answerMessages(this.value, this.at);
    return this.messageList[position] ?? EMPTY_ANSWER;
  }

  texts(): readonly TextPart[] {
    if (this.textList !== undefined) return this.textList;
    const out: TextPart[] = [];
    for (const choice of this.choices) messageTexts(choice.message, true, out);
    return (this.textList = out);
  }

  toJSON(): { id: string | undefined; model: string | undefined; choices: readonly Choice[] } {
    return { id: this.id, model: this.model, choices: this.choices };
  }
}

const EMPTY_ANSWER: Message = Object.freeze({ role: 'assistant', parts: NONE });

/** A stream event's view: facts and parts each read on first use. */
class EventView implements EventContent {
  private readonly reader: ContentReader;
  private readonly value: unknown;
  private readonly at: Edits;
  private facts: Pick<EventContent, 'id' | 'model' | 'finish'> | undefined = undefined;
  private parts: Pick<EventContent, 'deltas' | 'toolCalls' | 'repeated'> | undefined = undefined;

  constructor(reader: ContentReader, value: unknown, at: Edits) {
    this.reader = reader;
    this.value = value;
    this.at = at;
  }

  get id(): string | undefined {
    return this.read().id;
  }

  get model(): string | undefined {
    return this.read().model;
  }

  get finish(): EventContent['finish'] {
    return this.read().finish;
  }

  get deltas(): EventContent['deltas'] {
    return this.added().deltas;
  }

  get toolCalls(): EventContent['toolCalls'] {
    return this.added().toolCalls;
  }

  get repeated(): EventContent['repeated'] {
    return this.added().repeated;
  }

  texts(): readonly (TextPart | ToolArgumentsDelta)[] {
    const { deltas, toolCalls, repeated } = this.added();
    if (toolCalls.length === 0 && repeated.length === 0) return deltas;
    const out: Array<TextPart | ToolArgumentsDelta> = [];
    for (const delta of deltas) out.push(delta);
    for (const call of toolCalls) for (const part of call.argumentTexts()) out.push(part);
    for (const part of repeated) {
      if (part.type === 'tool_call') for (const text of part.argumentTexts()) out.push(text);
      else out.push(part);
    }
    return out;
  }

  toJSON(): Pick<EventContent, 'id' | 'model' | 'finish' | 'deltas' | 'toolCalls' | 'repeated'> {
    return { id: this.id, model: this.model, finish: this.finish, deltas: this.deltas, toolCalls: this.toolCalls, repeated: this.repeated };
  }

  private read(): Pick<EventContent, 'id' | 'model' | 'finish'> {
    return (this.facts ??= this.reader.event(this.value));
  }

  private added(): Pick<EventContent, 'deltas' | 'toolCalls' | 'repeated'> {
    return (this.parts ??= this.reader.eventParts(this.value, this.at));
  }
}

/** `message`'s settable texts appended to `out`: text and refusal parts (reasoning too when `reasoning`), tool-call argument strings, tool results' texts. */
function messageTexts(message: Message, reasoning: boolean, out: TextPart[]): void {
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
      case 'refusal':
        out.push(part);
        break;
      case 'reasoning':
        if (reasoning) out.push(part);
        break;
      case 'tool_call':
        for (const text of part.argumentTexts()) out.push(text);
        break;
      case 'tool_result':
        for (const text of part.texts()) out.push(text);
        break;
    }
  }
}

/** The view of a request of a format without a reader: nothing in it. */
export const EMPTY_REQUEST: RequestContent = Object.freeze({
  instructions: NONE,
  messages: NONE,
  tools: NONE,
  params: Object.freeze({}),
  texts: () => NONE,
});

/** The view of an event of a format without a reader. */
export const EMPTY_EVENT: EventContent = Object.freeze({
  id: undefined,
  model: undefined,
  deltas: NONE,
  toolCalls: NONE,
  finish: NONE,
  repeated: NONE,
  texts: () => NONE,
});

/** The edit state of every view outside onRequest: `set` throws. Shared: a read-only view never writes to it. */
export const READ_ONLY: Edits = new Edits(false);

/** The view of a request `body` read by `reader`; `at` says whether its parts may be set. */
export function requestContent(reader: ContentReader, body: Record<string, unknown>, at: Edits): RequestContent {
  return new RequestView(reader, body, at);
}

/** The view of a whole answer (the parsed JSON body). */
export function answerContent(reader: ContentReader, value: unknown, at: Edits): AnswerContent {
  return new AnswerView(reader, value, at);
}

/** The view of one parsed stream event. */
export function eventContent(reader: ContentReader, value: unknown, at: Edits): EventContent {
  return new EventView(reader, value, at);
}
