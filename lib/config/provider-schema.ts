/**
 * Fields every provider section shares (docs/design.md "Config file"); kinds extend this schema.
 */
import { z } from 'zod';

/**
 * A field value as HTTP sends it (RFC 9110 field-value): visible ASCII, spaces and tabs
 * inside, and the bytes 0x80-0xFF, with no space at either end. undici refuses anything else
 * when the request is sent (a BOM, a lone surrogate, a control character, a line break), so
 * a provider would fail every call with a 502 made by gw; it is refused where it is written.
 */
const HEADER_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * A string sent in an HTTP header (a provider's `api_key`, a webhook's or exporter's
 * `headers` values). Its message never quotes the value, which is often a secret.
 */
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

/**
 * The routing settings the core reads from a provider section (when the kind declares
 * them in `ProviderPlugin.routing`); the kind's own schema never sees them.
 */
export const routingSettingsSchema = z.strictObject({
  /** Retries on connect errors, 408, 429 and 5xx before the first byte. */
  max_retries: z.number().int().min(0).max(10).default(2),
  /** Share of traffic in a `weighted` group. */
  weight: z.number().positive().default(1),
});

/**
 * `max_output_tokens`, read by the core for every kind (lib/output-caps.ts): the largest
 * output-token cap a request may send to this provider's models, as one number or by model
 * id or `*` pattern.
 */
export const outputCapsSchema = z.union([
  z.number().int().positive(),
  z.record(z.string().min(1), z.number().int().positive(), { error: 'expected a number of tokens, or a table of model ids or patterns and numbers of tokens' }),
]);

export type ProviderBaseConfig = z.output<typeof providerBaseSchema>;
