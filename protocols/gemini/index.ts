/**
 * `gw/plugin/gemini`: the Gemini API protocol kit. Being moved here from plugins/ (issue 24).
 */
export { geminiPassthrough } from '../../plugins/formats/gemini/passthrough.ts';
