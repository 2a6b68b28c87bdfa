/** `gw/plugin/format`: what a client format or a protocol kit imports beyond `gw/plugin` (docs/plugins.md "Entries"). */

// declaring a client format: its routes, error shape and key sources
export type { FormatSetup } from '../core/plugins/contract.ts';
export type { FormatRoute } from '../core/pipeline/route.ts';
export type { KeySource } from '../lib/http/key-sources.ts';
export { OPENAI_ERRORS } from '../lib/http/routes.ts';
export { errorResponses, jsonRequestBody, schemaOf } from '../lib/openapi-fragments.ts';

// the generate loop (core/pipeline/generate.ts): a format declares these pieces, the kernel runs them
export { bodyOf } from '../core/pipeline/generate.ts';
export type { Generate, StreamFraming, ToChat } from '../core/pipeline/generate.ts';
export type { PassthroughReader, PassthroughStep } from '../core/pipeline/passthrough.ts';
export type { ChunkTranslator, TranslatedStream } from '../core/pipeline/translated-frames.ts';
export type { Pipeline } from '../core/pipeline/pipeline.ts';
export { affinityId, affinityPrefix, leadingContent } from '../lib/common/affinity.ts';

// upstream streams and errors: one rule for malformed event data on every path (lib/common/sse-data.ts)
export type { SseEvent, StreamMapper } from '../lib/provider.ts';
export type { UpstreamErrorInfo } from '../lib/http/client.ts';
export { upstreamError } from '../lib/http/errors.ts';
export { snippet } from '../lib/http/upstream.ts';
export { isBlank, malformedEvent, malformedFirst, objectFramed, parseEventObject } from '../lib/common/sse-data.ts';
export { chunkOf } from '../core/pipeline/upstream-calls.ts';
export { ChunkHolder } from '../core/pipeline/chunk-holder.ts';
// writing streams: an SSE data field of any text; what a stream sent so far (the early-end charge)
export { dataField } from '../lib/http/sse-write.ts';
export { estimateTokens, StreamProgress } from '../lib/common/estimate.ts';

// translating requests: field checks that name the path, warnings for what a translation drops, item caps
export { failField, quoted } from '../core/error-codes.ts';
export { Warnings } from '../lib/common/warnings.ts';
export { own, setOwn } from '../lib/own.ts';
export { capped, cappedTotal, lengthOr1, MAX_EMBEDDING_INPUTS, MAX_TOOLS, MAX_TURNS } from './limits.ts';
export { toToolInput } from './tool-input.ts';
export { stopSequences } from './stop-sequences.ts';

// a format's own routes: the request's key and id, the models its key may call
export { keyOf, requestIdOf } from '../core/pipeline/state.ts';
export type { ModelEntry } from '../lib/model-listing.ts';
export { modelFor, modelsFor, nearModels } from './models.ts';

// what a protocol implements to be read by the content view, and the parts its reader builds
export type { ContentReader } from '../lib/content/view.ts';
export type { Edits } from '../lib/content/parts.ts';
export { argumentsDelta, textAt, toolCall, toolResult } from '../lib/content/parts.ts';
export { listOf, numberOf, stringOf } from '../lib/content/wire.ts';
