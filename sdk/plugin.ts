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
 *   Store                              the shared store (values, counters, windows, holds…)
 *   holdAdmits, fitBound, KeyLocks     what a store backend shares with the built-in ones
 *   Provider, UpstreamClient…          the provider contract and its upstream client
 *   ChatRequest, ChatCompletion…       the common format (OpenAI chat completions)
 *   accountOf, answeredUpstream        who a request is accounted to; did an upstream answer
 *   chargeable, chargedUsage, priceOf  is rc.usage to be charged (answers, streams that ended early); the charge; its price
 *   KeyInfo, keyInfo, KeySettings      a key's virtual key settings (rc.key, gateway.key(name))
 *   defineFormat, Generate, Pipeline…  declare a client format: its routes, the generate loop's pieces
 *   PassthroughReader, parseEventObject… reading a protocol's upstream streams and bodies
 *   Warnings, capped, toToolInput…     what translations between a protocol and the common format share
 *
 * Protocol kits (types, schemas, usage, errors, stream readers and converters of one wire
 * protocol) are `gw/plugin/<protocol>`: `gw/plugin/anthropic-messages`, `gw/plugin/gemini`…
 *
 * Bail rule (onRequest, onCacheLookup): return `undefined` to go on, an answer to answer;
 * anything else (null, false…) fails the request with 500 `plugin_contract_violation`.
 * See docs/plugins.md.
 */

// declaring plugins
export { defineExtension, defineProvider } from '../core/plugins/contract.ts';
export type {
  AdminRoutes,
  ExtensionHandle,
  ExtensionPlugin,
  ExtensionSetup,
  GatewayInfo,
  Price,
  ProviderPlugin,
  ProviderSetup,
  RoutingSetting,
} from '../core/plugins/contract.ts';
export { GW_VERSION } from '../core/plugins/loader.ts';
export { providerBaseSchema, routingSettingsSchema } from '../core/plugins/provider-schema.ts';

// errors
export { defineError, GatewayError, messageForStores, upstreamError, UserError } from '../core/errors.ts';
export type { ErrorDef, ErrorExtra, ErrorFactory, ErrorType } from '../core/errors.ts';
export * as errors from '../core/error-codes.ts';
export { badRequest } from '../core/error-codes.ts';
export { UPSTREAM_AUTH_FAILED } from '../core/http/client.ts';

// the hook pipeline
export type { Chunk, ChunkTypes, CachedResponse, EarlyResponse, FinishedRequest, Hooks, ResponseInfo } from '../core/hooks.ts';
export { isCachedResponse, isEarlyResponse } from '../core/hooks.ts';
export type { KeyInfo, Operation, RequestContext, RequestFacts } from '../core/context.ts';
// virtual keys: a key's settings as rc.key and gateway.key(name) carry them; keyInfo builds one (tests)
export type { BudgetPeriod, KeySettingName, KeySettings } from '../core/key-settings.ts';
export { keyInfo } from '../core/keys.ts';
export { accountOf, answeredUpstream, chargeable, chargedUsage, OPEN_ACCOUNT, priceOf } from '../core/plugins/helpers.ts';

// the store, and what a store backend needs beyond its contract
export type { BucketRow, HoldOptions, HoldVerdict, Store, WindowVerdict } from '../core/store/types.ts';
export { defineStore } from '../core/plugins/contract.ts';
export type { StorePlugin, StoreSetup } from '../core/plugins/contract.ts';
export { fitBound, holdAdmits } from './hold-rule.ts';
export { KeyLocks } from './key-locks.ts';
export { redactUrl } from '../core/redact.ts';

// providers
export type { CallContext, ChatResult, NativeCall, NativeResult, Provider, SseEvent, StreamItem, StreamMapper } from '../core/provider.ts';
export type { CallOptions, ClientSettings, UpstreamClient, UpstreamErrorInfo } from '../core/http/client.ts';
export type { UpstreamResponse } from '../core/http/upstream.ts';

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
} from '../core/format/chat.ts';

// the client formats' chunk types (module augmentation of ChunkTypes): imported for their types only
export type {} from '../plugins/formats/openai-chat/index.ts';

// ---- what the protocol kits (gw/plugin/anthropic-messages, gw/plugin/gemini) and the formats
// and providers over them use (issue 24) ----

// client formats: declaring one, its routes, and what a route handler reads from the request
export { defineFormat } from '../core/plugins/contract.ts';
export type { FormatPlugin, FormatRoute, FormatSetup, GenerateRoute, HandlerRoute, RouteBase } from '../core/plugins/contract.ts';
export type { Pipeline } from '../core/pipeline/pipeline.ts';
export type { GwState, ParsedBody } from '../core/pipeline/state.ts';
export { errorResponses, jsonRequestBody, schemaOf } from '../core/openapi.ts';
// a format's model list in its own shape: what the key may call, one model's entry
export { findModel, modelListing } from '../core/routes/model-listing.ts';
export type { ModelEntry } from '../core/routes/model-listing.ts';

// the generate loop's pieces (core/pipeline/generate.ts), and a protocol's native stream reader
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
export type { TranslatedStream } from '../core/pipeline/translated-frames.ts';
export type { StreamProgress } from '../core/format/estimate.ts';

// reading upstream streams and bodies: one rule for malformed data on every path (core/format/sse-data.ts)
export { isBlank, malformedEvent, malformedFirst, objectFramed, parseEventObject } from '../core/format/sse-data.ts';
export { dataField } from '../core/http/sse-write.ts';
export { snippet } from '../core/http/upstream.ts';

// errors a protocol or format raises (the rest of the catalog is `errors`)
export {
  EMBEDDINGS_UNSUPPORTED,
  MODEL_NOT_FOUND,
  quoted,
  ROUTE_NOT_FOUND,
  UPSTREAM_ERROR,
  UPSTREAM_MALFORMED,
  UPSTREAM_TRUNCATED,
} from '../core/error-codes.ts';

// shared by translations between a protocol and the common format
export { Warnings } from '../core/format/warnings.ts';
export { estimateTokens } from '../core/format/estimate.ts';
export { own, setOwn } from '../core/own.ts';
export { toToolInput } from './tool-input.ts';
// the item caps of every client format's request schema (docs/design.md "Item counts are capped")
export { capped, MAX_EMBEDDING_INPUTS, MAX_TOOLS, MAX_TURNS } from './limits.ts';

// the kits' chunk types (module augmentation of ChunkTypes, in each kit's types.ts): types only
export type {} from '../protocols/anthropic-messages/types.ts';
export type {} from '../protocols/gemini/types.ts';
