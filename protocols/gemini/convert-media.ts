/**
 * Gemini media parts (`inlineData`, `fileData`) → common-format content parts.
 * @see Gemini API reference: Blob, FileData; OpenAI API reference: Create chat completion (content parts)
 */
import { badRequest, type ContentPart } from 'gw/plugin';
import { own, quoted } from 'gw/plugin/format';

/** `input_audio.format` for the audio types OpenAI accepts inline. */
const AUDIO_FORMATS: Readonly<Record<string, string>> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mp3': 'mp3',
  'audio/mpeg': 'mp3',
};

/** A file name for a `file` part, from its media type (OpenAI wants one; the content is what counts). */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/csv': 'csv',
  'text/html': 'html',
  'application/json': 'json',
};

/**
 * `inlineData {mimeType, data}` (base64) → `image_url` with a data URL for images,
 * `input_audio` for wav/mp3, a `file` part with a data URL for anything else (PDFs, text).
 * @throws GatewayError 400 naming `param` when `mimeType` or `data` is not a non-empty string.
 */
export function inlineDataToPart(blob: unknown, param: string): ContentPart {
  const b = blob as { mimeType?: unknown; data?: unknown } | null;
  if (typeof b !== 'object' || b === null) throw badRequest(`${param} must be an object`, param);
  if (typeof b.mimeType !== 'string' || b.mimeType === '') throw badRequest(`${param}.mimeType must be a non-empty string`, `${param}.mimeType`);
  if (typeof b.data !== 'string' || b.data === '') throw badRequest(`${param}.data must be base64 data`, `${param}.data`);
  const mime = b.mimeType.toLowerCase();
  if (mime.startsWith('image/')) return { type: 'image_url', image_url: { url: `data:${mime};base64,${b.data}` } };
  const audio = own(AUDIO_FORMATS, mime);
  if (audio !== undefined) return { type: 'input_audio', input_audio: { data: b.data, format: audio } };
  return { type: 'file', file: { filename: `file.${own(EXTENSIONS, mime) ?? 'bin'}`, file_data: `data:${mime};base64,${b.data}` } };
}

/**
 * `fileData` → `image_url` for an http(s) image any vendor can fetch; Files API, `gs://` and
 * non-image URLs → 400, since dropping the file would change what the conversation says.
 */
export function fileDataToPart(file: unknown, param: string): ContentPart {
  const f = file as { mimeType?: unknown; fileUri?: unknown } | null;
  if (typeof f !== 'object' || f === null) throw badRequest(`${param} must be an object`, param);
  if (typeof f.fileUri !== 'string' || f.fileUri === '') throw badRequest(`${param}.fileUri must be a non-empty string`, `${param}.fileUri`);
  const uri = f.fileUri;
  if (/^gs:\/\//i.test(uri) || /^https:\/\/generativelanguage\.googleapis\.com\//i.test(uri)) {
    throw badRequest(`${param}.fileUri: Gemini Files API and gs:// URIs can be read only by Gemini models; send the file as inlineData`, `${param}.fileUri`);
  }
  if (!/^https?:\/\//i.test(uri)) throw badRequest(`${param}.fileUri must be an http(s) URL for this model`, `${param}.fileUri`);
  const mime = typeof f.mimeType === 'string' ? f.mimeType.toLowerCase() : '';
  const looksLikeImage = mime.startsWith('image/') || (mime === '' && /\.(png|jpe?g|gif|webp)(\?|#|$)/i.test(uri));
  if (!looksLikeImage) throw badRequest(`${param}.mimeType: only image URLs can be sent to this model`, `${param}.mimeType`, quoted(f.mimeType ?? null));
  return { type: 'image_url', image_url: { url: uri } };
}
