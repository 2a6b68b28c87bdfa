/**
 * The error codes of gw's stored responses (the format's own state, response-store.ts):
 * an id this key has no response for, a record gw cannot read, and a continued
 * conversation past its bounds. In OpenAI's error shape like every Responses route.
 */
import { defineError } from 'gw/plugin';

/**
 * No stored response with this id for this key: never stored (`store: false`), expired
 * (`[responses] ttl_days`), deleted, or created with another gateway key. `param` names
 * where the id came from (`previous_response_id`, `response_id`).
 */
export const RESPONSE_NOT_FOUND = defineError<{ id: string; what?: string }>(
  'response_not_found',
  404,
  (p) => `${p.what ?? 'response'} with id '${p.id}' not found (responses are kept for [responses] ttl_days and only for the gateway key that created them)`,
  // the id is the client's: logs and the request log keep what kind of id was not found
  {
    logMessage: (p) =>
      `${p.what === undefined || p.what === 'response' || p.what === 'previous response' ? (p.what ?? 'response') : 'a response the conversation continues'} not found`,
  },
);

/**
 * A stored response whose record gw cannot read (damaged in the store, or not written by gw):
 * it cannot be retrieved or continued; deleting it still works. `what` as for RESPONSE_NOT_FOUND.
 */
export const RESPONSE_UNREADABLE = defineError<{ id: string; what?: string }>(
  'response_unreadable',
  409,
  (p) => `${p.what ?? 'response'} with id '${p.id}' is stored but its record cannot be read; delete it and start a new conversation`,
);

/** A conversation longer than `[responses] max_chain_length`, continued through previous_response_id. */
export const CONVERSATION_TOO_LONG = defineError<number>(
  'conversation_too_long',
  400,
  (n) =>
    `previous_response_id: the conversation already holds more than ${n} responses ([responses] max_chain_length); start a new one with what matters of it in input`,
  { param: 'previous_response_id' },
);

/**
 * A request that stored items would make larger than `max_body_bytes` once gw expands them
 * into it: the conversation `previous_response_id` continues, or the items its
 * `item_reference`s name (`param` = `input`).
 */
export const CONVERSATION_TOO_LARGE = defineError<{ limit: number; param: string }>('conversation_too_large', 400, (p) =>
  p.param === 'previous_response_id'
    ? `previous_response_id: the conversation it continues, with this request, is larger than max_body_bytes (${p.limit} bytes); start a new one with what matters of it in input`
    : `${p.param}: the stored items its item_reference items name make the request larger than max_body_bytes (${p.limit} bytes)`,
);
