/** `gw/plugin/format`: what a client format or a protocol kit imports beyond `gw/plugin` (docs/plugins.md "Entries"). */

// declaring a client format: its protocol object and routes (the route, setup and key-source types are defineFormat's)
export type { Protocol } from '../core/protocol.ts';
export type { CountTokens } from '../core/pipeline/count.ts';
export type { Embeddings } from '../core/pipeline/embed.ts';
export { OPENAI_ERRORS } from '../lib/http/routes.ts';
export { errorResponses, jsonRequestBody, schemaOf } from '../lib/openapi-fragments.ts';

// the generate loop (core/pipeline/generate.ts): a format declares these pieces, the kernel runs them
export { bodyOf } from '../core/pipeline/generate.ts';
export type { Generate } from '../core/pipeline/generate.ts';
export type { StreamStep } from '../lib/vendor/side.ts';
export { affinityId, affinityPrefix, leadingContent } from '../lib/common/affinity.ts';

// translating requests: field checks that name the path, warnings for what a translation drops, item caps
export { failField, quoted } from '../core/error-codes.ts';
export { stringField } from '../lib/common/fields.ts';
export { Warnings } from '../lib/common/warnings.ts';
export { own, setOwn } from '../lib/own.ts';
export { capped, cappedTotal, lengthOr1, MAX_EMBEDDING_INPUTS, MAX_TOOLS, MAX_TURNS } from '../lib/common/limits.ts';
export { toToolInput } from '../lib/common/tool-input.ts';
export { stopSequences } from '../lib/common/stop-sequences.ts';

// a format's own routes: the request's key and id, the models its key may call
export { keyOf, requestIdOf } from '../core/pipeline/state.ts';
export type { ModelEntry } from '../lib/model-listing.ts';
export { modelFor, modelsFor, nearModels } from './models.ts';

// what a protocol implements to be read by the content view, and the parts its reader builds
export type { ContentReader } from '../lib/content/view.ts';
export type { Edits } from '../lib/content/parts.ts';
export { argumentsDelta, textAt, toolCall, toolResult } from '../lib/content/parts.ts';
export { listOf, numberOf, stringOf } from '../lib/content/wire.ts';
