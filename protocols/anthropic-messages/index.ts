/**
 * `gw/plugin/anthropic-messages`: the Anthropic Messages protocol kit. Being moved here from
 * plugins/ (issue 24).
 */
export { readMessagesError } from '../../plugins/formats/anthropic-messages/errors.ts';
export { DEFAULT_ANTHROPIC_VERSION, messagesHeaders, messagesOrigin, messagesPassthrough } from '../../plugins/formats/anthropic-messages/passthrough.ts';
