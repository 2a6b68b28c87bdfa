/**
 * OpenAI chat request → Messages request. Pure: no I/O, no clock.
 * Degraded input is reported in `warnings` (the provider logs them); input that cannot be
 * represented at all is a 400 naming the field. README.md lists every decision.
 * @see Anthropic API: Messages
 */
import { badRequest, type ChatRequest } from 'gw/plugin';
import { own, quoted } from 'gw/plugin/format';
import { stopSequences } from '../../lib/common/stop-sequences.ts';
import { convertToMessagesPrompt } from './convert-to-messages-prompt.ts';
import { mapTools, stripSchemaDialect } from './map-tools.ts';
import { defaultMaxTokens, hasFixedSampling, supportsStructuredOutputs, thinkingStyle } from './model-capabilities.ts';
import type { MessagesRequest } from './types.ts';

export interface ToMessagesRequestOptions {
  /** `max_tokens` when the client gave none; default: `defaultMaxTokens(req.model)`. */
  defaultMaxTokens?: number;
}

/** Fields this translator reads; anything else is unknown and dropped with a warning. */
const HANDLED = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'top_k',
  'n',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'reasoning_effort',
  'user',
  'safety_identifier',
]);

/** OpenAI-only fields with no Messages equivalent: dropped, with the reason in the warning. */
const DROPPED: Record<string, string> = {
  seed: 'anthropic sampling cannot be seeded',
  presence_penalty: 'anthropic has no presence penalty',
  frequency_penalty: 'anthropic has no frequency penalty',
  logit_bias: 'anthropic has no logit bias',
  logprobs: 'anthropic returns no log probabilities',
  top_logprobs: 'anthropic returns no log probabilities',
  store: 'stored completions are an OpenAI feature',
  metadata: 'OpenAI metadata tags stored completions; anthropic metadata only carries user_id (from `user`)',
  service_tier: "OpenAI's tiers have no anthropic equivalent",
  modalities: 'anthropic models answer in text only',
  audio: 'anthropic models answer in text only',
  prediction: 'anthropic has no predicted outputs',
  web_search_options: 'use a model with built-in search; anthropic server tools are not mapped',
  prompt_cache_key: 'anthropic caches by cache_control breakpoints, not by key',
  prompt_cache_retention: 'anthropic caches by cache_control breakpoints',
  verbosity: 'anthropic has no verbosity setting',
};

/** reasoning_effort → `budget_tokens` for models with budgeted thinking (see README). */
const THINKING_BUDGET: Record<string, number> = { minimal: 1024, low: 4096, medium: 8192, high: 16384, xhigh: 32000, max: 32000 };
/** reasoning_effort → `output_config.effort` for models with adaptive thinking (low|medium|high|xhigh|max). */
const ADAPTIVE_EFFORT: Record<string, string> = { minimal: 'low', low: 'low', medium: 'medium', high: 'high', xhigh: 'xhigh', max: 'max' };

const JSON_OBJECT_INSTRUCTION = 'Respond with a single valid JSON object only, with no text before or after it.';

/**
 * Translate a chat request (with `model` already canonical) into a Messages request body.
 * @throws GatewayError 400 naming the field for what cannot be translated (`n > 1`,
 *   unparseable tool-call arguments, unsupported content parts, legacy `functions`).
 */
export function toMessagesRequest(req: ChatRequest, opts: ToMessagesRequestOptions = {}): { body: MessagesRequest; warnings: string[] } {
  const warnings: string[] = [];
  if (!Array.isArray(req.messages)) throw badRequest('messages must be an array', 'messages');
  if (req.functions !== undefined || req.function_call !== undefined) {
    throw badRequest(
      'functions and function_call are not supported for anthropic models: use tools and tool_choice',
      req.functions !== undefined ? 'functions' : 'function_call',
    );
  }
  if (typeof req.n === 'number' && req.n > 1) throw badRequest('n > 1 is not supported by anthropic models (one choice per request)', 'n');

  for (const [key, value] of Object.entries(req)) {
    if (HANDLED.has(key) || value === undefined || value === null || value === false) continue;
    const why = own(DROPPED, key);
    warnings.push(why !== undefined ? `${key} dropped: ${why}` : `${key} dropped: not a field anthropic models understand`);
  }

  const model = req.model;
  const prompt = convertToMessagesPrompt(req.messages, warnings);
  const { tools, tool_choice } = mapTools(req, warnings);
  const max_tokens = maxTokens(req, opts.defaultMaxTokens ?? defaultMaxTokens(model));

  const body: MessagesRequest = { model, max_tokens, messages: prompt.messages };
  let system = prompt.system;
  if (req.stream === true) body.stream = true;

  const stop = stopSequences(req.stop);
  if (stop) body.stop_sequences = stop;

  if (tools) body.tools = tools;
  if (tool_choice) body.tool_choice = tool_choice;

  const outputConfig: Record<string, unknown> = {};
  const thinking = mapReasoningEffort(req.reasoning_effort, model, max_tokens, tool_choice, warnings);
  if (thinking) {
    body.thinking = thinking.thinking;
    if (thinking.effort) outputConfig.effort = thinking.effort;
  }

  const format = req.response_format;
  if (format !== undefined && format !== null && format.type !== 'text') {
    if (format.type === 'json_object') {
      warnings.push('response_format json_object: anthropic has no JSON mode; asked for JSON in the system prompt');
      system = appendSystem(system, JSON_OBJECT_INSTRUCTION);
    } else if (format.type === 'json_schema') {
      const schema = format.json_schema?.schema;
      if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
        throw badRequest('response_format.json_schema.schema must be a JSON Schema object', 'response_format.json_schema.schema');
      if (supportsStructuredOutputs(model)) {
        outputConfig.format = { type: 'json_schema', schema: stripSchemaDialect(schema) };
      } else {
        warnings.push(`response_format json_schema: ${model} has no structured outputs; asked for the schema in the system prompt`);
        system = appendSystem(system, `${JSON_OBJECT_INSTRUCTION} It must conform to this JSON Schema:\n${JSON.stringify(schema)}`);
      }
    } else {
      throw badRequest('response_format.type is not supported (text, json_object, json_schema are)', 'response_format.type', quoted(format.type));
    }
  }
  if (Object.keys(outputConfig).length > 0) body.output_config = outputConfig;

  mapSampling(req, body, model, thinking !== undefined, warnings);

  const userId =
    typeof req.user === 'string' && req.user !== ''
      ? req.user
      : typeof req.safety_identifier === 'string' && req.safety_identifier !== ''
        ? req.safety_identifier
        : undefined;
  if (userId !== undefined) body.metadata = { user_id: userId };

  if (system !== undefined) body.system = system;
  return { body, warnings };
}

function maxTokens(req: ChatRequest, fallback: number): number {
  const field = req.max_completion_tokens !== undefined && req.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens';
  const value = req[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw badRequest(`${field} must be a non-negative integer`, field);
  return value;
}

/** reasoning_effort → thinking, per the README; a budget stays below `max_tokens` as Anthropic's "Extended thinking" requires. */
function mapReasoningEffort(
  effort: ChatRequest['reasoning_effort'],
  model: string,
  maxTokens: number,
  toolChoice: MessagesRequest['tool_choice'],
  warnings: string[],
): { thinking: NonNullable<MessagesRequest['thinking']>; effort?: string } | undefined {
  if (effort === undefined || effort === null || effort === 'none') return undefined;
  if (typeof effort !== 'string' || !Object.hasOwn(THINKING_BUDGET, effort))
    throw badRequest('reasoning_effort is not supported (none, minimal, low, medium, high, xhigh are)', 'reasoning_effort', quoted(effort));
  const style = thinkingStyle(model);
  if (style === 'none') {
    warnings.push(`reasoning_effort dropped: ${model} has no extended thinking`);
    return undefined;
  }
  if (toolChoice?.type === 'any' || toolChoice?.type === 'tool') {
    warnings.push('reasoning_effort dropped: anthropic models cannot think while tool_choice forces a tool call');
    return undefined;
  }
  if (style === 'adaptive') return { thinking: { type: 'adaptive' }, effort: ADAPTIVE_EFFORT[effort] };

  let budget = THINKING_BUDGET[effort];
  if (budget >= maxTokens) {
    budget = Math.max(1024, Math.floor(maxTokens / 2));
    if (budget >= maxTokens) {
      warnings.push(`reasoning_effort dropped: max_tokens ${maxTokens} leaves no room for the 1024-token minimum thinking budget`);
      return undefined;
    }
    warnings.push(`thinking budget for reasoning_effort '${effort}' lowered to ${budget} to stay below max_tokens ${maxTokens}`);
  }
  return { thinking: { type: 'enabled', budget_tokens: budget } };
}

/**
 * Sampling within what the model accepts ("Extended thinking › Feature compatibility"); what
 * it forbids is dropped with a warning: a client's usual temperature should not get a 400.
 */
function mapSampling(req: ChatRequest, body: MessagesRequest, model: string, thinking: boolean, warnings: string[]): void {
  const fixed = hasFixedSampling(model);
  const limit = fixed ? `${model} accepts no sampling parameters` : 'anthropic models do not accept it with thinking';

  let temperature = req.temperature;
  if (temperature !== undefined && temperature !== null) {
    if (typeof temperature !== 'number' || temperature < 0) throw badRequest('temperature must be a number from 0 to 2', 'temperature');
    if (temperature > 1) {
      warnings.push(`temperature ${temperature} clamped to 1 (anthropic range is 0..1)`);
      temperature = 1;
    }
    if (fixed || thinking) {
      if (temperature !== 1) warnings.push(`temperature dropped: ${limit}`);
    } else body.temperature = temperature;
  }

  const topP = req.top_p;
  if (topP !== undefined && topP !== null) {
    if (typeof topP !== 'number' || topP < 0 || topP > 1) throw badRequest('top_p must be a number from 0 to 1', 'top_p');
    if ((fixed && topP < 0.99) || (thinking && topP < 0.95)) warnings.push(`top_p dropped: ${limit}`);
    else body.top_p = topP;
  }

  const topK = req.top_k;
  if (topK !== undefined && topK !== null) {
    if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 0) throw badRequest('top_k must be a non-negative integer', 'top_k');
    if (fixed || thinking) warnings.push(`top_k dropped: ${limit}`);
    else body.top_k = topK;
  }
}

function appendSystem(system: MessagesRequest['system'], text: string): NonNullable<MessagesRequest['system']> {
  if (system === undefined) return text;
  if (typeof system === 'string') return `${system}\n\n${text}`;
  return [...system, { type: 'text', text }];
}
