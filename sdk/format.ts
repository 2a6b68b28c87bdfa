/**
 * `gw/plugin/format`: what a client format imports beyond `gw/plugin` (docs/plugins.md
 * "Entries"): its protocol object's types, the generate loop's pieces, request checks, its own
 * routes' helpers, and what its content reader builds. The kits' shared internals (SSE reading,
 * the vendor side, the passthrough step) are not the door's: the kits import their files.
 */

// the protocol object and its generate declaration (core/pipeline/generate.ts): the kernel runs it
export type { Protocol } from '../core/protocol.ts';
export { bodyOf } from '../core/pipeline/generate.ts';
export type { Generate } from '../core/pipeline/generate.ts';
export type { StreamStep } from '../lib/vendor/side.ts';

// translating requests: values quoted in a 400, warnings for what a translation drops, item caps
export { quoted } from '../core/error-codes.ts';
export { Warnings } from '../lib/common/warnings.ts';
export { own } from '../lib/own.ts';
export { capped, MAX_TOOLS, MAX_TURNS } from '../lib/common/limits.ts';

// a format's own routes: the request's key and id, the models its key may call, OpenAPI fragments
export { keyOf, requestIdOf } from '../core/pipeline/state.ts';
export { modelFor, modelsFor, nearModels } from './models.ts';
export { errorResponses, jsonRequestBody, schemaOf } from '../lib/openapi-fragments.ts';

// what a protocol implements to be read by the content view, and the parts its reader builds
export type { ContentReader } from '../lib/content/view.ts';
export type { Edits } from '../lib/content/parts.ts';
export { argumentsDelta, textAt, toolCall, toolResult } from '../lib/content/parts.ts';
export { listOf, numberOf, stringOf } from '../lib/content/wire.ts';
