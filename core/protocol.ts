/** A wire protocol as one typed object (each kit exports one): serving its clients, calling its vendors, read by extensions. */
import type { z } from 'zod';
import type { ContentReader } from '../lib/content/view.ts';
import type { KeySource } from '../lib/http/key-sources.ts';
import type { ErrorShape } from '../lib/http/routes.ts';
import type { ModelEntry } from '../lib/model-listing.ts';
import type { VendorSide } from '../lib/vendor/side.ts';
import type { RequestProtocol } from './context.ts';
import type { CountTokens } from './pipeline/count.ts';
import type { Embeddings } from './pipeline/embed.ts';
import type { Generate } from './pipeline/generate.ts';

/** One wire protocol, both sides. `Ev`: its stream event. */
export interface Protocol<Ev = unknown> extends ErrorShape, RequestProtocol {
  /** `anthropic-messages`: the client format's id, `Provider.native`'s key, `rc.format`, onChunk's `chunk.format`. */
  readonly id: string;
  /** How debug logs and errors name it (`Messages`, `Gemini`). */
  readonly label: string;
  /** Where its clients send a gateway key, in the order looked at. */
  readonly keyFrom: readonly KeySource[];
  /** zod schemas: its generate request (a 400 naming the field; OpenAPI) and its error body (OpenAPI). */
  readonly schema: { readonly request: z.ZodType; readonly error?: z.ZodType };
  /** The GenAI conventions' name of its generate operation: `chat` (default) or `generate_content`. */
  readonly operationName?: string;
  /** A request, an answer and a stream event, format-free; absent: extensions get the empty view. */
  readonly content?: ContentReader;
  /** Serving its clients. */
  readonly client: ClientSide<Ev>;
  /** Calling an upstream that speaks it (a provider's side: lib/vendor); absent for a client-only protocol. */
  readonly vendor?: VendorSide;
}

/** Serving a protocol's clients: the pieces the kernel's loops run and its model list shapes. */
export interface ClientSide<Ev = unknown> {
  /** POST generate, or (Gemini) one per route: `:generateContent` and `:streamGenerateContent`. */
  // biome-ignore lint/suspicious/noExplicitAny: each protocol types its own state and translation facts
  readonly generate?: Generate<any, any, Ev> | ((stream: boolean) => Generate<any, any, Ev>);
  /** POST count tokens (Messages' count_tokens, Gemini's countTokens). */
  readonly countTokens?: CountTokens;
  /** POST embeddings, or (Gemini) one per route: `:embedContent` and `:batchEmbedContents`. */
  readonly embeddings?: Embeddings | ((batch: boolean) => Embeddings);
  /** Its model list shapes: `GET …/models` (one page of `models`; `query` the request's) and `GET …/models/{id}`. */
  readonly models?: {
    list(models: readonly ModelEntry[], query: Readonly<Record<string, string | string[] | undefined>>): unknown;
    one(model: ModelEntry): unknown;
  };
}
