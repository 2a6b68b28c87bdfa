/**
 * `gw/plugin/openai-chat`: the OpenAI chat-completions protocol kit (the common format on
 * the wire). Being moved here from plugins/ (issue 24).
 */
export { type CompatibleSettings, createCompatibleProvider } from '../../plugins/providers/openai/compatible.ts';
