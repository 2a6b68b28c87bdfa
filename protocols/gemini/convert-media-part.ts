/**
 * Common-format media content parts (image_url, input_audio, file) → Gemini parts.
 * @see Gemini API docs: Image understanding; Gemini API reference: Part
 */
import { badRequest } from 'gw/plugin';
import { own } from 'gw/plugin/format';
import type { Part } from './types.ts';

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
};

const DATA_URI_RE = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s;

/**
 * A `data:` URI → `inlineData`; anything else is undefined. Non-base64 data URIs
 * (percent-encoded) are re-encoded, since `inlineData.data` is always base64.
 */
export function dataUriToPart(uri: string, param: string): Part | undefined {
  if (!uri.startsWith('data:')) return undefined;
  const m = DATA_URI_RE.exec(uri);
  if (m === null) throw badRequest(`${param}: malformed data URI`, param);
  const [, mime = '', params = '', payload = ''] = m;
  if (mime === '') throw badRequest(`${param}: data URI has no media type`, param);
  const isBase64 = params.split(';').includes('base64');
  const data = isBase64 ? payload : Buffer.from(decodeURIComponent(payload), 'utf8').toString('base64');
  return { inlineData: { mimeType: mime, data } };
}

/** The image media type a URL's path extension names, else `image/jpeg` (Gemini needs one). */
export function guessImageMimeType(url: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // not absolute: use the string as given
  }
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return (ext !== undefined ? own(MIME_BY_EXTENSION, ext) : undefined) ?? 'image/jpeg';
}

/**
 * `{type: "image_url"}` → `inlineData` for data URIs, `fileData` for http(s) and `gs://`
 * URLs (with a warning: Gemini reads Files API and `gs://` URIs everywhere, arbitrary web
 * URLs only on some models). `detail` has no Gemini equivalent and is ignored.
 */
export function imageUrlToPart(url: unknown, param: string, warnings: string[]): Part {
  if (typeof url !== 'string' || url === '') throw badRequest(`${param} must be a non-empty string`, param);
  const inline = dataUriToPart(url, param);
  if (inline !== undefined) return inline;
  if (!/^(https?|gs):\/\//i.test(url)) throw badRequest(`${param}: expected a data: URI or an http(s) URL`, param);
  warnings.push(`${param}: image URL sent as fileData.fileUri; Gemini fetches only Files API, gs:// and (on some models) public URLs`);
  return { fileData: { mimeType: guessImageMimeType(url), fileUri: url } };
}

/** `{type: "input_audio", input_audio: {data, format}}` → `inlineData` (`audio/<format>`). */
export function inputAudioToPart(audio: unknown, param: string): Part {
  const a = audio as { data?: unknown; format?: unknown } | null | undefined;
  if (typeof a?.data !== 'string' || typeof a.format !== 'string') {
    throw badRequest(`${param} must be {data, format}`, param);
  }
  return { inlineData: { mimeType: `audio/${a.format}`, data: a.data } };
}

/**
 * `{type: "file", file: {file_data}}` (a data URI) → `inlineData`. OpenAI `file_id`s
 * live in OpenAI's storage, which Gemini cannot reach: 400.
 */
export function fileToPart(file: unknown, param: string): Part {
  const f = file as { file_data?: unknown; file_id?: unknown } | null | undefined;
  if (typeof f?.file_data === 'string') {
    const part = dataUriToPart(f.file_data, `${param}.file_data`);
    if (part !== undefined) return part;
    throw badRequest(`${param}.file_data must be a data: URI`, `${param}.file_data`);
  }
  if (f?.file_id !== undefined)
    throw badRequest(`${param}.file_id: OpenAI file ids cannot be sent to Gemini; inline the file as file_data`, `${param}.file_id`);
  throw badRequest(`${param} must carry file_data`, param);
}
