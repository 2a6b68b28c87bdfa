/**
 * Gemini `models.list` pages → model ids gw can serve.
 * @see Gemini API reference: models.list
 */

/** Methods behind gw's routes: chat (and /v1/messages through it) and embeddings. */
const SERVED_METHODS = new Set(['generateContent', 'streamGenerateContent', 'embedContent', 'batchEmbedContents']);

/** One `models.list` response page (only the fields gw reads). */
export interface ListModelsPage {
  models?: Array<{ name?: unknown; supportedGenerationMethods?: unknown }>;
  nextPageToken?: unknown;
}

/**
 * Ids of one page without the `models/` prefix (`models/gemini-2.5-flash` →
 * `gemini-2.5-flash`), and the next page's token. Models that declare methods and none
 * of gw's (e.g. Imagen's `predict`, `aqa`) are left out: no route of gw could reach them.
 * @returns `undefined` when the page has no `models` array where one is expected.
 */
export function readModelsPage(page: ListModelsPage): { ids: string[]; next: string | undefined } | undefined {
  const next = typeof page.nextPageToken === 'string' && page.nextPageToken !== '' ? page.nextPageToken : undefined;
  // an empty last page may omit `models` altogether (proto3 JSON drops empty lists)
  if (page.models === undefined) return { ids: [], next };
  if (!Array.isArray(page.models)) return undefined;
  const ids: string[] = [];
  for (const m of page.models) {
    if (typeof m?.name !== 'string') continue;
    const methods = m.supportedGenerationMethods;
    if (Array.isArray(methods) && !methods.some((x) => SERVED_METHODS.has(x as string))) continue;
    ids.push(m.name.startsWith('models/') ? m.name.slice('models/'.length) : m.name);
  }
  return { ids, next };
}
