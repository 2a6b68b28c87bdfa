/**
 * The plugin SDK: everything a `gw-plugin-<name>` package may import, from one entry
 * (`import { defineExtension } from 'gw/plugin'`). Built-in plugins use the same pieces;
 * a third-party plugin has exactly their powers. Nothing else in gw is a public API.
 *
 *   defineProvider / defineExtension   declare a plugin (name, config schema, setup, `gw` range)
 *   defineStore                        declare a store backend, chosen by `[store] url`'s scheme
 *   GatewayError, defineError, errors  the error catalog: throw the core's entries or define
 *                                      your own codes (a refusal says its metrics `refusal`)
 *   Hooks, Chunk, EarlyResponse…       the hook pipeline and what taps see and return
 *   ArrivingRequest, UpstreamAttempt   what the tracing hooks see (a request's arrival, each upstream attempt)
 *   Store                              the shared store (values, counters, windows, holds…)
 *   holdAdmits, fitBound, KeyLocks     what a store backend shares with the built-in ones
 *   Provider, UpstreamClient…          the provider contract and its upstream client
 *   ChatRequest, ChatCompletion…       the common format (OpenAI chat completions)
 *   cachedTokens, reasoningTokens…     a usage's parts (cache reads, writes, reasoning), cacheHitRate
 *   BUDGET_SETTLED                     what the budget extension tells others about a charged request
 *   MCP_CALL, McpCall                  what the MCP gateway tells extensions about a tools/call (operation `tool`)
 *   accountOf, answeredUpstream        who a request is accounted to; did an upstream answer
 *   chargeable, chargedUsage           is rc.usage to be charged (answers, streams that ended early); the charge
 *   Cost, ResolvedPrice, usdText       what a request cost by part (rc.cost) and the price it was charged at (rc.price)
 *   KeyInfo, keyInfo, KeySettings      a key's virtual key settings (rc.key, gateway.key(name))
 *   defineFormat, Generate…            a client format: its routes, and the pieces the kernel's
 *                                      generate loop runs (read, native reader, translations)
 *   StreamProgress, parseEventObject…  reading and writing streams the way the built-ins do
 *   readSeries, parseSeriesQuery…      usage over time as `?bucket=&group_by=` series
 *
 * Protocol kits: `gw/plugin/<protocol>` (openai-chat, openai-responses, anthropic-messages,
 * gemini) hold each wire protocol's types, schemas, usage mapping, errors, stream readers
 * and converters to and from the common format, for a plugin that speaks it.
 *
 * Bail rule (onRequest, onCacheLookup): return `undefined` to go on, an answer to answer;
 * anything else (null, false…) fails the request with 500 `plugin_contract_violation`.
 * See docs/plugins.md.
 */

// declaring plugins
export { defineExtension, defineProvider } from '../core/plugins/contract.ts';
export type { ExtensionHandle, ExtensionPlugin, ExtensionSetup, ProviderPlugin, ProviderSetup, RoutingSetting } from '../core/plugins/contract.ts';
export type { AdminRoutes, GatewayInfo, ProviderStatus } from '../lib/gateway-info.ts';
export { GW_VERSION } from '../core/plugins/loader.ts';
export { providerBaseSchema, routingSettingsSchema } from '../lib/config/provider-schema.ts';

// errors
export { defineError, GatewayError, messageForStores } from '../core/errors.ts';
export { UserError } from '../lib/user-error.ts';
export { upstreamError } from '../lib/http/errors.ts';
export type { ErrorDef, ErrorExtra, ErrorFactory, ErrorType } from '../core/errors.ts';
export * as errors from './errors.ts';
export { badRequest } from '../core/error-codes.ts';
export { UPSTREAM_AUTH_FAILED } from '../lib/http/client.ts';

// the hook pipeline
export type { Chunk, ChunkTypes, CachedResponse, EarlyResponse, FinishedRequest, Hooks, ResponseInfo } from '../core/hooks.ts';
export { isCachedResponse, isEarlyResponse } from '../core/hooks.ts';

// observing a request's edges (tracing): its arrival and each upstream attempt (onArrival,
// onUpstreamStart, onUpstreamEnd), and the metric families an extension adds to /metrics
export type { ArrivingRequest, UpstreamAttempt } from '../core/hooks.ts';
export type { ExtensionMetrics } from '../lib/gateway-info.ts';
export type { KeyInfo, Operation, RequestContext, RequestFacts } from '../core/context.ts';
// virtual keys: a key's settings as rc.key and gateway.key(name) carry them; keyInfo builds one (tests)
export type { BudgetPeriod, KeySettingName, KeySettings } from '../lib/key-settings.ts';
export { keyInfo } from '../lib/keys.ts';
// facts a plugin leaves in rc.state for the others (sdk/facts.ts): the budget's charge of a request
export { BUDGET_SETTLED, MCP_CALL } from './facts.ts';
export type { BudgetSettled, McpCall, McpOutcome } from './facts.ts';
export { accountOf, answeredUpstream, chargeable, chargedUsage, OPEN_ACCOUNT } from '../core/plugins/helpers.ts';
// prices: rc.cost (by part) and rc.price (which price, from where), set by the core once usage is final
export type { Cost } from '../lib/pricing/cost.ts';
export type { PriceSource, ResolvedPrice } from '../lib/pricing/book.ts';
export { usdText } from '../core/pipeline/charge.ts';

// the store, and what a store backend needs beyond its contract
export type { BucketRow, HoldOptions, HoldVerdict, Store, WindowVerdict } from '../lib/store/types.ts';
export { defineStore } from '../lib/store/plugin.ts';
export type { StorePlugin, StoreSetup } from '../lib/store/plugin.ts';
export { fitBound, holdAdmits } from './hold-rule.ts';
export { KeyLocks } from './key-locks.ts';
export { redactUrl } from '../lib/redact.ts';

// providers
export type { CallContext, ChatResult, NativeCall, NativeResult, Provider, SseEvent, StreamItem, StreamMapper } from '../lib/provider.ts';
export type { CallOptions, ClientSettings, UpstreamClient, UpstreamErrorInfo } from '../lib/http/client.ts';
export type { UpstreamResponse } from '../lib/http/upstream.ts';

// the common format
export type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatMessage,
  ChatRequest,
  ChatTool,
  ContentPart,
  EmbeddingsRequest,
  EmbeddingsResponse,
  FinishReason,
  ToolCall,
  ToolCallDelta,
  ToolChoice,
  Usage,
} from '../lib/format/chat.ts';
// a usage's parts, read one way by every accounting view (bounded by their wholes)
export {
  cachedTokens,
  cacheHitRate,
  cacheWrite1hTokens,
  cacheWriteTokens,
  completionTokens,
  promptTokens,
  reasoningTokens,
} from '../lib/format/usage-parts.ts';

// the client formats' chunk types (module augmentation of ChunkTypes): imported for their types only
export type {} from './chunk-types.ts';

// ── Client formats (issue 24: the OpenAI chat and Responses kits, defineFormat public) ──

// declaring a client format: its routes, error shape and key sources; `[formats.<id>]` enables a third-party one
export { defineFormat } from '../core/plugins/contract.ts';
export type { FormatPlugin, FormatRoute, FormatSetup, GenerateRoute, HandlerRoute, RouteBase } from '../core/plugins/contract.ts';
export type { ErrorShape, KeySource, RouteMethod } from '../lib/routes/registry.ts';
// the OpenAI error shape: chat, embeddings, models, admin routes, and any route no format owns
export { OPENAI_ERRORS } from '../lib/routes/registry.ts';
// OpenAPI fragments of a format's operations
export { errorResponses, jsonRequestBody, schemaOf } from '../server/openapi.ts';

// the generate loop (core/pipeline/generate.ts): a format declares these pieces, the kernel runs them
export { bodyOf } from '../core/pipeline/generate.ts';
export type {
  AnswerEnv,
  AttemptEnv,
  ChunkFrames,
  Generate,
  GenerateRead,
  NativeGenerate,
  StreamFraming,
  ToChat,
  TranslatedAnswer,
  TranslatedGenerate,
} from '../core/pipeline/generate.ts';
export type { PassthroughReader, PassthroughStep } from '../core/pipeline/passthrough.ts';
export type { ChunkTranslator, TranslatedStream } from '../core/pipeline/translated-frames.ts';
// prompt-cache affinity: what a format's `Generate.affinity` reads to name a conversation
export { affinityId, affinityPrefix, leadingContent } from '../lib/format/affinity.ts';
// the pipeline's four steps, for a format route that is not a generate route (embeddings, counting)
export type { Admission, AdmitInput } from '../core/pipeline/admit.ts';
export type { Answer } from '../core/pipeline/finish.ts';
export type { Attempt, Pipeline, Served } from '../core/pipeline/pipeline.ts';
export type { StreamAnswer } from '../core/pipeline/stream.ts';

// reading upstream streams: one rule for malformed event data on every path (lib/format/sse-data.ts)
export { isBlank, malformedEvent, malformedFirst, objectFramed, parseEventObject } from '../lib/format/sse-data.ts';
export { chunkOf } from '../core/pipeline/upstream-calls.ts';
export { ChunkHolder } from '../core/pipeline/chunk-holder.ts';
// writing streams: an SSE data field of any text; what a stream sent so far (the early-end charge)
export { dataField } from '../lib/http/sse-write.ts';
export { estimateTextTokens, estimateTokens, StreamProgress } from '../lib/format/estimate.ts';

// translating requests: field checks that name the path, warnings for what a translation drops, item caps
export { quoted } from '../core/error-codes.ts';
export { Warnings } from '../lib/format/warnings.ts';
export { own } from '../lib/own.ts';
export { capped, MAX_EMBEDDING_INPUTS, MAX_TOOLS, MAX_TURNS } from './limits.ts';

// a format's own routes: the request's key and id, the models its key may call
export { keyOf, requestIdOf } from '../core/pipeline/state.ts';
export type { ModelEntry } from '../lib/model-listing.ts';
export { modelFor, modelsFor, nearModels } from './models.ts';

// ── Extensions' helpers (issue 24: what plugins/extensions/_shared offered, and the core pieces extensions used) ──

// usage and spend over time: hourly buckets read back as `?bucket=&group_by=&from=&to=` series
export {
  BUCKETS_KEY,
  DAY_MS,
  HOUR_MS,
  INVALID_QUERY,
  MINUTE_MS,
  parseSeriesQuery,
  parseTime,
  readSeries,
  SERIES_DISABLED,
  wantsSeries,
} from './series.ts';
export type { Dimension, SeriesQuery, SeriesShape, SeriesSource } from './series.ts';
// RFC 3339 times (UTC, seconds) as budgets and logs print them; the log levels gw knows
export { rfc3339 } from '../lib/key-settings.ts';
export { LEVELS } from '../server/log.ts';

// ── Protocol kits (issue 24: the Anthropic Messages and Gemini kits, and the formats and providers over them) ──

// the start of an upstream's body, for an error that quotes what came back
export { snippet } from '../lib/http/upstream.ts';
// a property set on a converted object without a prototype lookup (keys that come from the client)
export { setOwn } from '../lib/own.ts';
// a tool call's arguments as the object a Messages or Gemini tool_use/functionCall carries
export { toToolInput } from './tool-input.ts';
// a common-format `stop` as the list Messages and Gemini take
export { stopSequences } from './stop-sequences.ts';
