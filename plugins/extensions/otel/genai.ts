/**
 * What the GenAI semantic conventions record about a call, read from the request context and
 * the content view (never a format's wire shape). Attribute names are the constants of
 * `@opentelemetry/semantic-conventions` 1.45.0 (`incubating`: the GenAI conventions as of v1.41.0).
 */
import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_CHOICE_COUNT,
  ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY,
  ATTR_GEN_AI_REQUEST_SEED,
  ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_K,
  ATTR_GEN_AI_REQUEST_TOP_P,
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
} from '@opentelemetry/semantic-conventions/incubating';
import { type AnswerContent, type Chunk, cutText, type EventContent, type RequestContext } from 'gw/plugin';
import { markCut, STOP_SEQUENCE_MAX_CHARS, STOP_SEQUENCES_MAX } from './bounded.ts';
import { attributeSet } from './span.ts';

/** `gen_ai.provider.name` by provider kind: the conventions' well-known values; any other kind is named as itself. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  anthropic: GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  gemini: GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  azure: GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
};

/** `gen_ai.provider.name` for a provider kind. */
export function providerName(kind: string): string {
  return Object.hasOwn(PROVIDER_NAMES, kind) ? PROVIDER_NAMES[kind]! : kind;
}

/**
 * The client's stop sequences as `key` of `a`: at most STOP_SEQUENCES_MAX, each cut to
 * STOP_SEQUENCE_MAX_CHARS; marked cut when either bound left something out.
 */
function setStopSequences(a: Attributes, key: string, all: readonly string[]): void {
  const out: string[] = [];
  let cut = false;
  for (const s of all) {
    if (out.length === STOP_SEQUENCES_MAX) {
      cut = true;
      break;
    }
    const kept = cutText(s, STOP_SEQUENCE_MAX_CHARS);
    if (kept !== s) cut = true;
    out.push(kept);
  }
  if (out.length === 0) return;
  a[key] = out;
  if (cut) markCut(a, key);
}

/** The request attributes every attempt of a request shares: operation, stream, and the sampling parameters as set. */
export function requestAttributes(rc: RequestContext): Attributes {
  const p = rc.content().params;
  const a = attributeSet();
  a[ATTR_GEN_AI_OPERATION_NAME] = rc.operationName;
  if (rc.stream) a[ATTR_GEN_AI_REQUEST_STREAM] = true;
  if (rc.maxOutputTokens !== undefined) a[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = rc.maxOutputTokens;
  if (rc.choices !== 1) a[ATTR_GEN_AI_REQUEST_CHOICE_COUNT] = rc.choices;
  set(a, ATTR_GEN_AI_REQUEST_TEMPERATURE, p.temperature);
  set(a, ATTR_GEN_AI_REQUEST_TOP_P, p.topP);
  set(a, ATTR_GEN_AI_REQUEST_TOP_K, p.topK);
  set(a, ATTR_GEN_AI_REQUEST_SEED, p.seed);
  set(a, ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY, p.frequencyPenalty);
  set(a, ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY, p.presencePenalty);
  if (p.stop !== undefined) setStopSequences(a, ATTR_GEN_AI_REQUEST_STOP_SEQUENCES, p.stop);
  return a;
}

function set(a: Attributes, k: string, v: number | undefined): void {
  if (v !== undefined) a[k] = v;
}

/** What the answer said about itself: `gen_ai.response.id`, `.model`, `.finish_reasons`. */
export class ResponseFacts {
  id: string | undefined = undefined;
  model: string | undefined = undefined;
  finishReasons: string[] | undefined = undefined;

  /** Reads a whole answer. */
  answer(answer: AnswerContent): void {
    this.id ??= answer.id;
    this.model ??= answer.model;
    for (const choice of answer.choices) this.reason(choice.finish?.native);
  }

  /**
   * Whether a stream chunk can tell anything not yet known: only the first chunks (id, model)
   * and those that may carry a finish reason can; the others are never parsed.
   */
  wants(chunk: Chunk): boolean {
    return this.id === undefined || this.model === undefined || chunk.mightFinish();
  }

  /** Reads one stream event. */
  event(event: EventContent): void {
    this.id ??= event.id;
    this.model ??= event.model;
    for (const finish of event.finish) this.reason(finish.native);
  }

  private reason(v: string | undefined): void {
    if (v === undefined || v === '') return;
    (this.finishReasons ??= []).push(v);
  }
}
