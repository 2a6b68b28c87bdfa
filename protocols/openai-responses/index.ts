/**
 * `gw/plugin/openai-responses`: the OpenAI Responses protocol kit. Being moved here from
 * plugins/ (issue 24).
 */
export { responsesPassthrough } from '../../plugins/formats/openai-responses/passthrough.ts';
