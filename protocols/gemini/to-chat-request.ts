/**
 * A Gemini `GenerateContentRequest` (+ the model from the URL) → a common-format ChatRequest,
 * for the Gemini routes served by a kind that does not speak Gemini. Follows the Gemini API
 * reference, "generateContent: Request body" and "GenerationConfig".
 */
import { badRequest, type ChatMessage, type ChatRequest, isObject } from 'gw/plugin';
import { Warnings } from 'gw/plugin/format';
import { failField } from '../../core/error-codes.ts';
import { convertContents, convertSystemInstruction } from './convert-contents.ts';
import { googleSchemaToJsonSchema, normalizeJsonSchema } from './convert-schema.ts';
import { convertToolConfig, convertTools } from './convert-tools.ts';
import type { GenerateContentBody } from './types.ts';

type Obj = Record<string, unknown>;

export interface GeminiToChatOptions {
  /** The model id from the URL (`models/{model}:…`), alias or canonical. */
  model: string;
  /** `:streamGenerateContent` (either framing) rather than `:generateContent`. */
  stream: boolean;
}

/** The translated request, what was dropped, and what the answer must look like. */
export interface GeminiToChatResult {
  req: ChatRequest;
  /** One line per kind of dropped input (the route logs them at debug). */
  warnings: string[];
  /**
   * `generationConfig.thinkingConfig.includeThoughts`: return reasoning as `thought: true`
   * parts. Gemini returns thoughts only when asked, so gw does the same.
   */
  includeThoughts: boolean;
}

/** Top-level fields translated below; every other one is dropped with a warning. */
const MAPPED = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'model']);

/** generationConfig fields with a common-format counterpart (numbers copied under the new name). */
const NUMBERS: ReadonlyArray<readonly [string, string]> = [
  ['maxOutputTokens', 'max_tokens'],
  ['temperature', 'temperature'],
  ['topP', 'top_p'],
  ['candidateCount', 'n'],
  ['seed', 'seed'],
  ['presencePenalty', 'presence_penalty'],
  ['frequencyPenalty', 'frequency_penalty'],
];

/** generationConfig fields handled apart from {@link NUMBERS}. */
const CONFIG_MAPPED = new Set([
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  '_responseJsonSchema',
  'thinkingConfig',
  'responseModalities',
]);

/**
 * Translates a parsed request body, field by field as the README's client-direction table says.
 * @throws GatewayError 400 with `param` naming the field (e.g. `contents[2].parts[0].inlineData.data`).
 */
export function geminiToChatRequest(body: GenerateContentBody, opts: GeminiToChatOptions): GeminiToChatResult {
  if (!isObject(body)) throw badRequest('request body must be a JSON object');
  if (typeof opts.model !== 'string' || opts.model === '') throw badRequest('the URL names no model', 'model');
  const w = new Warnings();
  const messages: ChatMessage[] = [];
  const system = convertSystemInstruction(body.systemInstruction, w);
  if (system !== undefined) messages.push(system);
  if (body.contents === undefined) failField('contents', 'is required');
  convertContents(body.contents, w, messages);
  if (messages.every((m) => m.role === 'system')) failField('contents', 'must hold at least one turn with content');

  const req: ChatRequest = { model: opts.model, messages };
  if (opts.stream) {
    req.stream = true;
    req.stream_options = { include_usage: true };
  }
  const { toolChoice, tools } = convertToolConfig(body.toolConfig, convertTools(body.tools, w), w);
  if (tools.length > 0) req.tools = tools;
  if (toolChoice !== undefined) req.tool_choice = toolChoice;
  const includeThoughts = generationConfig(body.generationConfig, req, w);

  for (const key of Object.keys(body)) {
    if (!MAPPED.has(key) && body[key] !== undefined) w.add(`${key} dropped: no common-format equivalent`, key);
  }
  return { req, warnings: w.list(), includeThoughts };
}

/** Copies generationConfig onto `req`; returns `thinkingConfig.includeThoughts`. */
function generationConfig(gc: unknown, req: ChatRequest, w: Warnings): boolean {
  if (gc === undefined || gc === null) return false;
  if (!isObject(gc)) failField('generationConfig', 'must be an object');
  for (const [from, to] of NUMBERS) {
    const v = gc[from];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) failField(`generationConfig.${from}`, 'must be a number');
    req[to] = v;
  }
  const stop = gc.stopSequences;
  if (stop !== undefined && stop !== null) {
    if (!Array.isArray(stop) || !stop.every((s) => typeof s === 'string')) failField('generationConfig.stopSequences', 'must be an array of strings');
    if (stop.length > 0) req.stop = [...stop];
  }
  responseFormat(gc, req, w);
  const modalities = gc.responseModalities;
  if (modalities !== undefined && !(Array.isArray(modalities) && modalities.every((m) => m === 'TEXT'))) {
    w.add('responseModalities other than TEXT dropped: the common format answers with text', 'generationConfig.responseModalities');
  }
  for (const key of Object.keys(gc)) {
    if (gc[key] === undefined || CONFIG_MAPPED.has(key) || NUMBERS.some(([from]) => from === key)) continue;
    w.add(`generationConfig.${key} dropped: no common-format equivalent`, `generationConfig.${key}`);
  }
  return thinking(gc.thinkingConfig, w);
}

/** responseMimeType + responseSchema / responseJsonSchema → response_format. */
function responseFormat(gc: Obj, req: ChatRequest, w: Warnings): void {
  const mime = gc.responseMimeType;
  if (mime !== undefined && typeof mime !== 'string') failField('generationConfig.responseMimeType', 'must be a string');
  // `_responseJsonSchema` is how older @google/genai versions spelled it on the wire
  const jsonSchemaKey = gc.responseJsonSchema !== undefined ? 'responseJsonSchema' : gc._responseJsonSchema !== undefined ? '_responseJsonSchema' : undefined;
  let schema: Obj | undefined;
  if (jsonSchemaKey !== undefined) {
    schema = normalizeJsonSchema(gc[jsonSchemaKey], `generationConfig.${jsonSchemaKey}`);
    if (gc.responseSchema !== undefined) w.add('responseSchema ignored: responseJsonSchema given too', 'generationConfig.responseSchema');
  } else if (gc.responseSchema !== undefined && gc.responseSchema !== null) {
    schema = googleSchemaToJsonSchema(gc.responseSchema, 'generationConfig.responseSchema');
  }
  if (mime === undefined || mime === 'text/plain') {
    if (schema !== undefined) w.add('response schema dropped: it applies only with responseMimeType application/json', 'generationConfig.responseMimeType');
    return;
  }
  if (mime !== 'application/json') {
    w.add(`responseMimeType ${mime} dropped: only application/json has a common-format equivalent`, 'generationConfig.responseMimeType');
    return;
  }
  req.response_format = schema === undefined ? { type: 'json_object' } : { type: 'json_schema', json_schema: { name: 'response', schema } };
}

function thinking(tc: unknown, w: Warnings): boolean {
  if (tc === undefined || tc === null) return false;
  if (!isObject(tc)) failField('generationConfig.thinkingConfig', 'must be an object');
  for (const key of Object.keys(tc)) {
    if (key !== 'includeThoughts') w.add(`thinkingConfig.${key} dropped: no common-format equivalent`, `generationConfig.thinkingConfig.${key}`);
  }
  if (tc.includeThoughts !== undefined && typeof tc.includeThoughts !== 'boolean')
    failField('generationConfig.thinkingConfig.includeThoughts', 'must be a boolean');
  return tc.includeThoughts === true;
}
