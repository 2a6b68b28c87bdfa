/**
 * `gw/plugin`: what every plugin imports (`import { defineExtension } from 'gw/plugin'`).
 * Built-in plugins use the same pieces; a third-party `gw-plugin-<name>` has exactly their
 * powers. Nothing else in gw is a public API. Two more entries serve narrower audiences:
 * `gw/plugin/format` (client formats and protocol kits: generate pieces, streams, OpenAPI
 * fragments) and `gw/plugin/store` (store backends); `gw/plugin/<protocol>` are the kits.
 *
 *   defineProvider, defineExtension, defineFormat   declare a plugin
 *   GatewayError, defineError, errors, badRequest   the error catalog and its entries
 *   Hooks, RequestContext, Chunk, ResponseInfo…     the hook pipeline and what taps see
 *   accountOf, chargeable, cachedTokens, BUDGET_*   accounting: who pays, usage parts, budget facts
 *   Provider, CallContext, vendorProvider…          the provider contract, the one vendor loop
 *   ChatRequest, ChatCompletion, Usage…             the common format (OpenAI chat completions)
 *   readSeries, parseSeriesQuery, rfc3339, LEVELS   extensions' helpers
 *   isObject                                        narrowing a JSON value
 *
 * Bail rule (onRequest, onCacheLookup): return `undefined` to go on, an answer to answer;
 * anything else (null, false…) fails the request with 500 `plugin_contract_violation`.
 * See docs/plugins.md.
 */

// declaring plugins
export { defineExtension, defineFormat, defineProvider } from '../core/plugins/contract.ts';
export type { ExtensionHandle, ExtensionPlugin, ExtensionSetup, ProviderPlugin, ProviderSetup, RoutingSetting } from '../core/plugins/contract.ts';
export type { AdminRoutes, GatewayInfo, ProviderStatus } from '../lib/gateway-info.ts';
export { GW_VERSION } from '../core/plugins/loader.ts';
export { headerNameSchema, headerValueSchema, providerBaseSchema, routingSettingsSchema } from '../lib/config/provider-schema.ts';

// errors
export { defineError, GatewayError, messageForStores } from '../core/errors.ts';
export { UserError } from '../lib/user-error.ts';
export type { ErrorDef, ErrorExtra, ErrorFactory, ErrorType } from '../core/errors.ts';
export * as errors from './errors.ts';
export { badRequest } from '../core/error-codes.ts';
export { UPSTREAM_AUTH_FAILED } from '../lib/http/client.ts';

// the hook pipeline; a request's edges as tracing sees them; the families an extension adds to /metrics
export type { Chunk, ChunkTypes, CachedResponse, EarlyResponse, FinishedRequest, Hooks, ResponseInfo } from '../core/hooks.ts';
export type { KeysChange, Notice } from '../lib/gateway-info.ts';
export { isCachedResponse, isEarlyResponse } from '../core/hooks.ts';
export type { ArrivingRequest, UpstreamAttempt } from '../core/hooks.ts';
export type { ExtensionMetrics } from '../lib/gateway-info.ts';
export type { KeyInfo, Operation, RequestContext, RequestFacts } from '../core/context.ts';

// virtual keys: a key's settings as rc.key and gateway.key(name) carry them
export type { BudgetPeriod, KeySettingName, KeySettings } from '../lib/key-settings.ts';
export { keyInfo } from '../lib/keys.ts';

// accounting: who pays, what is charged, the budget's facts in rc.state, prices and money bounds
export { BUDGET_SETTLED, BUDGET_STATUS } from './facts.ts';
export type { BudgetSettled } from './facts.ts';
export { accountOf, answeredUpstream, chargeable, chargedUsage, OPEN_ACCOUNT } from '../core/plugins/helpers.ts';
export { isModelRefusal } from '../lib/model-refusal.ts';
export { CUT_MARK, cutText } from '../lib/cut-text.ts';
export { MAX_MODEL_CHARS } from '../core/pipeline/admit.ts';
export type { Cost } from '../lib/pricing/cost.ts';
export type { PriceSource, ResolvedPrice } from '../lib/pricing/book.ts';
export { usdText } from '../core/pipeline/charge.ts';
export { MAX_USD, MAX_USD_PER_MTOK, usdAmount, usdPerMtok } from '../lib/pricing/bounds.ts';

// the shared store (backends: gw/plugin/store)
export type { Store } from '../lib/store/types.ts';
export { redactUrl } from '../lib/redact.ts';

// providers
export type { CallContext, ChatResult, NativeCall, NativeResult, Provider, StreamItem } from '../lib/provider.ts';
// a provider for a vendor that speaks a protocol: its vendor side, plus settings and quirks
export { vendorProvider } from '../lib/vendor/provider.ts';
export type { CallOptions, ClientSettings, UpstreamClient } from '../lib/http/client.ts';
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
} from '../lib/common/chat.ts';
export {
  cachedTokens,
  cacheHitRate,
  cacheWrite1hTokens,
  cacheWriteTokens,
  completionTokens,
  promptTokens,
  reasoningTokens,
} from '../lib/common/usage-parts.ts';
export { isObject } from '../lib/common/json.ts';

// extensions' helpers: usage over time as `?bucket=&group_by=&from=&to=` series; times and log levels
export {
  badQuery,
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
export { rfc3339 } from '../lib/key-settings.ts';
export { LEVELS } from '../lib/log-levels.ts';

// record and replay: the powers the recorder and the replay kind are written on
// every provider's upstream HTTP exchanges, as an extension's `upstream.observe` hears them
export type { ExchangeObserver, ExchangeSink, ExchangeStart, UpstreamIdentity } from '../lib/http/exchange.ts';
export { HIDDEN_ORIGIN, upstreamSettings } from '../lib/http/exchange.ts';
export type { AttemptScope } from '../lib/http/attempt-headers.ts';
// building a provider of another kind over a transport of one's own; paths from the config
export type { ExtensionPowers, ProviderPowers, TransportOptions } from '../lib/plugin-powers.ts';
// secrets out of kept text: the gateway's scrubber, detectors (a guardrails extension adds its own)
export type { SecretScrubber } from '../lib/secrets/scrubber.ts';
export type { SecretDetector, SecretMatch } from '../lib/secrets/key-formats.ts';
export { keyFormats } from '../lib/secrets/key-formats.ts';
export { currentAttempt } from '../lib/http/attempt-headers.ts';
export { NonOwningDispatcher, observedDispatcher } from '../lib/http/exchange.ts';

// the content view: a request, an answer and a stream event read format-free (lib/content)
export type {
  AnswerContent,
  EventContent,
  Message,
  Part,
  RequestContent,
  TextPart,
  ToolCallPart,
  ToolDefinition,
  ToolResultPart,
} from '../lib/content/types.ts';
// onStream's steps: a stream's events held and released, rewritten, or the stream cut
export type { EventStep, HeldChunk } from '../lib/content/steps.ts';
