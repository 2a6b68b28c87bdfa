/**
 * OpenAI's model list, both ways: the page gw answers on `GET /v1/models` and the one a
 * common-format upstream answers on `GET {base_url}/models` (discovery).
 * @see OpenAI API reference: List models
 */
import type { ModelEntry } from '../../lib/model-listing.ts';

/** `GET /v1/models`: `{object: "list", data}`; each entry OpenAI's model object plus gw's `alias_for`. */
export interface ModelList {
  object: 'list';
  data: readonly ModelEntry[];
}

/** The list page of `entries`. */
export function modelList(entries: readonly ModelEntry[]): ModelList {
  return { object: 'list', data: entries };
}

/** The model ids of an upstream's list page (entries without a string `id` skipped); undefined when it is not a list page. */
export function modelIds(body: unknown): string[] | undefined {
  const data = (body as { data?: Array<{ id?: unknown }> } | null)?.data;
  return Array.isArray(data) ? data.map((m) => m.id).filter((id): id is string => typeof id === 'string') : undefined;
}
