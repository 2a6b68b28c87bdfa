/**
 * Fields every provider section shares (docs/design.md "Config file"); kinds extend this schema.
 */
import { z } from 'zod';

/** An RFC 9110 field value: undici refuses anything else at send time, so it is refused where written. */
const HEADER_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** A string sent in an HTTP header (`api_key`, `headers` values); its message never quotes the value. */
export const headerValueSchema = z
  .string()
  .regex(
    HEADER_VALUE,
    'expected a value HTTP can send in a header: printable characters only (no control character, line break, byte-order mark or other character above U+00FF) and no space at either end',
  );

/** An HTTP header name. */
export const headerNameSchema = z.string().regex(HEADER_NAME, "expected an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)");

export const providerBaseSchema = z.strictObject({
  /** Provider kind; defaults to the section name. */
  kind: z.string().optional(),
  /** Sent upstream in a header; may be `${VAR}`. */
  api_key: headerValueSchema.min(1, 'expected the provider api_key (it may be "${VAR}")'),
  /** Model ids served; discovered from the upstream when omitted. */
  models: z.array(z.string().min(1)).optional(),
  /** Common-format origin with its version prefix, e.g. "https://api.openai.com/v1". */
  base_url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
  /** Seconds to response headers, and the longest gap between stream chunks. */
  timeout_seconds: z.number().positive().default(600),
});

/** The routing settings the host reads from a provider section (`ProviderPlugin.routing`). */
export const routingSettingsSchema = z.strictObject({
  /** Retries on connect errors, 408, 429 and 5xx before the first byte. */
  max_retries: z.number().int().min(0).max(10).default(2),
  /** Share of traffic in a `weighted` group. */
  weight: z.number().positive().default(1),
});

/** `max_output_tokens` (lib/output-caps.ts): one number, or by model id or `*` pattern. */
export const outputCapsSchema = z.union([
  z.number().int().positive(),
  z.record(z.string().min(1), z.number().int().positive(), { error: 'expected a number of tokens, or a table of model ids or patterns and numbers of tokens' }),
]);

export type ProviderBaseConfig = z.output<typeof providerBaseSchema>;
