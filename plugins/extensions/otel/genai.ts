/**
 * What the GenAI semantic conventions record about a call, read from gw's request context
 * and each client format's own wire shapes. The attribute names are the constants of
 * `@opentelemetry/semantic-conventions` 1.45.0 (its `incubating` entry: the GenAI
 * conventions as of semantic-conventions v1.41.0, the last release that kept them before they
 * moved to their own repository), never spelled here.
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
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
} from '@opentelemetry/semantic-conventions/incubating';
import { cutText, type RequestContext } from 'gw/plugin';
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
 * `gen_ai.operation.name` of a request: `chat` for chat completions, Messages and Responses,
 * `generate_content` for Gemini's generateContent, `embeddings`; token counting has no
 * well-known value and is named `count_tokens`; an MCP tools/call is `execute_tool`.
 */
export function operationName(rc: Pick<RequestContext, 'operation' | 'format'>): string {
  if (rc.operation === 'embed') return GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS;
  if (rc.operation === 'count') return 'count_tokens';
  if (rc.operation === 'tool') return GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL;
  return rc.format === 'gemini' ? GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT : GEN_AI_OPERATION_NAME_VALUE_CHAT;
}

type Obj = Record<string, unknown>;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);

/**
 * The client's stop sequences as `key` of `a`: at most STOP_SEQUENCES_MAX, each cut to
 * STOP_SEQUENCE_MAX_CHARS; marked cut when either bound left something out.
 */
function setStopSequences(a: Attributes, key: string, v: unknown): void {
  const all = typeof v === 'string' ? [v] : Array.isArray(v) ? v : undefined;
  if (all === undefined) return;
  const out: string[] = [];
  let cut = false;
  for (const s of all) {
    if (typeof s !== 'string') continue;
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

/**
 * The request attributes every attempt of a request shares: operation, stream, and the
 * sampling parameters as the client's format names them (Gemini's in `generationConfig`).
 */
export function requestAttributes(rc: RequestContext): Attributes {
  const b = rc.body;
  const gemini = rc.format === 'gemini';
  const p = gemini ? (obj(b.generationConfig) ?? {}) : b;
  const a = attributeSet();
  a[ATTR_GEN_AI_OPERATION_NAME] = operationName(rc);
  if (rc.stream) a[ATTR_GEN_AI_REQUEST_STREAM] = true;
  if (rc.maxOutputTokens !== undefined) a[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = rc.maxOutputTokens;
  if (rc.choices !== 1) a[ATTR_GEN_AI_REQUEST_CHOICE_COUNT] = rc.choices;
  set(a, ATTR_GEN_AI_REQUEST_TEMPERATURE, num(p.temperature));
  set(a, ATTR_GEN_AI_REQUEST_TOP_P, num(gemini ? p.topP : p.top_p));
  set(a, ATTR_GEN_AI_REQUEST_TOP_K, num(gemini ? p.topK : p.top_k));
  set(a, ATTR_GEN_AI_REQUEST_SEED, num(p.seed));
  set(a, ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY, num(gemini ? p.frequencyPenalty : p.frequency_penalty));
  set(a, ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY, num(gemini ? p.presencePenalty : p.presence_penalty));
  setStopSequences(a, ATTR_GEN_AI_REQUEST_STOP_SEQUENCES, gemini ? p.stopSequences : rc.format === 'anthropic-messages' ? p.stop_sequences : p.stop);
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

  /** Reads a whole JSON answer of `format`. */
  body(format: string, b: unknown): void {
    const o = obj(b);
    if (!o) return;
    if (format === 'gemini') {
      this.gemini(o);
      return;
    }
    this.id ??= str(o.id);
    this.model ??= str(o.model);
    if (format === 'openai-chat') for (const c of arr(o.choices)) this.reason(obj(c)?.finish_reason);
    else if (format === 'anthropic-messages') this.reason(o.stop_reason);
    else if (format === 'openai-responses') this.reason(responsesReason(o));
  }

  /**
   * Whether a stream chunk of `format` whose JSON text is `data` can tell anything not yet
   * known (undefined `data`: the chunk is an object already, reading it is free). Only the
   * first chunks (id, model) and those carrying a finish reason can; the others are left
   * unparsed.
   */
  wants(format: string, data: string | undefined): boolean {
    if (data === undefined || this.id === undefined || this.model === undefined) return true;
    const finish = FINISH[format];
    return finish === undefined || finish.test(data);
  }

  /** Reads one stream chunk or event of `format`, as onChunk shows it. */
  chunk(format: string, v: unknown): void {
    const o = obj(v);
    if (!o) return;
    switch (format) {
      case 'openai-chat':
        this.id ??= str(o.id);
        this.model ??= str(o.model);
        for (const c of arr(o.choices)) this.reason(obj(c)?.finish_reason);
        return;
      case 'anthropic-messages': {
        const m = obj(o.message);
        if (m) {
          this.id ??= str(m.id);
          this.model ??= str(m.model);
        }
        this.reason(obj(o.delta)?.stop_reason);
        return;
      }
      case 'openai-responses': {
        const r = obj(o.response);
        if (!r) return;
        this.id ??= str(r.id);
        this.model ??= str(r.model);
        if (o.type === 'response.completed' || o.type === 'response.incomplete') this.reason(responsesReason(r));
        return;
      }
      case 'gemini':
        this.gemini(o);
    }
  }

  private gemini(o: Obj): void {
    this.id ??= str(o.responseId);
    this.model ??= str(o.modelVersion);
    for (const c of arr(o.candidates)) this.reason(obj(c)?.finishReason);
  }

  private reason(v: unknown): void {
    if (typeof v !== 'string' || v === '') return;
    (this.finishReasons ??= []).push(v);
  }
}

/** What a chunk's text holds when it carries a finish reason, by format (ResponseFacts.wants). */
const FINISH: Readonly<Record<string, RegExp>> = {
  'openai-chat': /"finish_reason"\s*:\s*"/,
  'anthropic-messages': /"stop_reason"\s*:\s*"/,
  'openai-responses': /"type"\s*:\s*"response\.(?:completed|incomplete)"/,
  gemini: /"finishReason"\s*:\s*"/,
};

/** A Responses answer has no finish reason: its status, or why it is incomplete. */
function responsesReason(r: Obj): string | undefined {
  return str(obj(r.incomplete_details)?.reason) ?? str(r.status);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function arr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : EMPTY;
}

const EMPTY: readonly unknown[] = [];
