/**
 * `gw/plugin`: what every plugin imports, the built-ins' powers exactly; `gw/plugin/format`,
 * `gw/plugin/store` and the kits `gw/plugin/<protocol>` serve narrower audiences. docs/plugins.md.
 */

// declaring a plugin
export { defineExtension, defineFormat, defineProvider } from '../core/plugins/contract.ts';
// what a setup receives, for authors who write it outside the define… call
export type { ExtensionSetup, ProviderSetup } from '../core/plugins/contract.ts';
export type { GatewayInfo } from '../lib/gateway-info.ts';
export { headerNameSchema, headerValueSchema, providerBaseSchema } from '../lib/config/provider-schema.ts';

// errors
export { defineError, GatewayError, messageForStores } from '../core/errors.ts';
export { UserError } from '../lib/user-error.ts';
export * as errors from './errors.ts';
export { badRequest } from '../core/error-codes.ts';

// hooks and what their taps see
export type {
  ArrivingRequest,
  CachedResponse,
  Chunk,
  ChunkTypes,
  EarlyResponse,
  FinishedRequest,
  Hooks,
  ResponseInfo,
  UpstreamAttempt,
} from '../core/hooks.ts';
export type { KeysChange } from '../lib/gateway-info.ts';
export type { KeyInfo, RequestContext } from '../core/context.ts';

// the content view: a request, an answer and a stream event read format-free
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
export type { EventStep } from '../lib/content/steps.ts';

// accounting: who pays, what is charged, usage parts, the budget's facts, money
export { accountOf, chargeable, chargedUsage, OPEN_ACCOUNT } from '../core/plugins/helpers.ts';
export { cachedTokens, cacheHitRate, cacheWriteTokens, reasoningTokens } from '../lib/common/usage-parts.ts';
// what the MCP gateway tells extensions about a tools/call (operation `tool`)
export { BUDGET_SETTLED, BUDGET_STATUS, GUARDRAILS, MCP_CALL } from './facts.ts';
// gw's detector of credentials in their vendors' formats (the guardrails' secrets check runs it too)
export { keyFormats } from '../lib/secrets/key-formats.ts';
export type { BudgetSettled, GuardrailOutcome, McpCall, McpOutcome } from './facts.ts';
export type { BudgetPeriod } from '../lib/key-settings.ts';
export { usdAmount } from '../lib/pricing/bounds.ts';

// providers, and the shared store (its backends: gw/plugin/store)
export type { ChatResult, Provider } from '../lib/provider.ts';
// a provider for a vendor that speaks a protocol: its vendor side, plus settings and quirks
export { vendorProvider } from '../lib/vendor/provider.ts';
export type { Store } from '../lib/store/types.ts';

// the common format (OpenAI chat completions)
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

// extensions' helpers: usage over time (`?bucket=&group_by=&from=&to=`), times, text, models, logs
export { badQuery, BUCKETS_KEY, parseSeriesQuery, parseTime, readSeries, wantsSeries } from './series.ts';
export type { SeriesShape } from './series.ts';
export { rfc3339 } from '../lib/key-settings.ts';
export { cutText } from '../lib/cut-text.ts';
export { isModelRefusal } from '../lib/model-refusal.ts';
export { MAX_MODEL_CHARS } from '../core/pipeline/admit.ts';
export { redactUrl } from '../lib/redact.ts';
export { LEVELS } from '../lib/log-levels.ts';
export { isObject } from '../lib/common/json.ts';

// upstream exchanges as extensions' `upstream.observe` hears them: the recorder and the replay kind
export type { ExchangeSink, ExchangeStart, UpstreamIdentity } from '../lib/http/exchange.ts';
export { upstreamSettings } from '../lib/http/exchange.ts';
export { currentAttempt } from '../lib/http/attempt-headers.ts';
