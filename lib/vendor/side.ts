/**
 * The pieces a wire protocol's vendor side is made of (what a provider runs to call an
 * upstream that speaks it), beginning with the one shape every stream step has.
 */

/**
 * A stream step: one input in, zero or more outputs; `end` flushes what the step held. One
 * instance per stream, pure (no I/O). Vendor events → common chunks (`MessagesToCommonStep`),
 * common chunks → a client's events (`CommonToMessagesStep`), and the like.
 */
export interface StreamStep<In, Out> {
  /** One input → zero or more outputs. @throws GatewayError on an input that fails the stream (an error event, malformed data). */
  push(item: In): Out[];
  /** The input ended → the closing outputs. @throws GatewayError when the input was cut before its end. */
  end(): Out[];
}
