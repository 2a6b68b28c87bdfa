/**
 * Where a route reads a gateway key: the sources a format declares (`keyFrom`), checked at
 * load and compiled once per route, so reading a key costs no array or string per request.
 */
import type { Context } from 'koa';
import { bearer } from '../keys.ts';

/**
 * Where a route reads a gateway key: `'bearer'`, a lower-case header holding the key as is
 * (`'x-api-key'`), or `'?<param>'`, removed from the query before anything forwards it (`'?key'`, or `'query-key'`).
 */
export type KeySource = 'bearer' | `?${string}` | (string & {});

/** A header name as HTTP writes it (RFC 9110 token), lower-case as Node hands it over. */
const HEADER = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;
const QUERY_PARAM = /^[A-Za-z0-9_.-]+$/;
/** Headers that carry something else than a key: a key there would break the request or leak with it. */
const RESERVED = new Set([
  'authorization',
  'cookie',
  'host',
  'connection',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'x-request-id',
  'traceparent',
  'tracestate',
]);
/** `'query-key'` is how the built-in formats spell `'?key'`. */
const ALIASES: Readonly<Record<string, KeySource>> = { 'query-key': '?key' };

/** The sources of a route that declares none. */
export const BEARER_ONLY: readonly KeySource[] = Object.freeze(['bearer']);

/** Where one source is: in `authorization` as a bearer token, a header, or a query parameter. */
export interface KeyLocation {
  readonly in: 'bearer' | 'header' | 'query';
  /** The header's or the query parameter's name (`authorization` for bearer). */
  readonly name: string;
}

/** One source, compiled: where it is, how to name it to a client, what marks it in a query string. */
interface Source extends KeyLocation {
  readonly how: string;
  readonly marker: string;
}

/** What is wrong with `source` as a key source; undefined when it is one. */
export function keySourceProblem(source: unknown): string | undefined {
  if (typeof source !== 'string') return `${JSON.stringify(source)} is not a string`;
  const canonical = ALIASES[source] ?? source;
  if (canonical === 'bearer') return undefined;
  if (canonical.startsWith('?')) return QUERY_PARAM.test(canonical.slice(1)) ? undefined : `'${canonical}' is not a query parameter name ('?key')`;
  if (!HEADER.test(canonical)) return `'${canonical}' is not 'bearer', a lower-case header name or '?<query parameter>'`;
  if (RESERVED.has(canonical))
    return canonical === 'authorization' ? "'authorization' is read as 'bearer'" : `'${canonical}' is a header HTTP or gw reads for itself`;
  return undefined;
}

/** `source` in its one spelling (`'query-key'` is `'?key'`). @throws Error naming what is wrong with it (keySourceProblem). */
export function canonicalKeySource(source: KeySource): KeySource {
  const problem = keySourceProblem(source);
  if (problem) throw new Error(`keyFrom: ${problem}`);
  return ALIASES[source] ?? source;
}

/** Where `source` is. @throws Error naming what is wrong with it (keySourceProblem). */
export function keyLocation(source: KeySource): KeyLocation {
  const canonical = canonicalKeySource(source);
  if (canonical === 'bearer') return { in: 'bearer', name: 'authorization' };
  return canonical.startsWith('?') ? { in: 'query', name: canonical.slice(1) } : { in: 'header', name: canonical };
}

function compile(source: KeySource): Source {
  const location = keyLocation(source);
  const how = location.in === 'bearer' ? 'Authorization: Bearer <key>' : location.in === 'query' ? `?${location.name}=<key>` : `${location.name}: <key>`;
  return { ...location, how, marker: `${location.name}=` };
}

/** The headers among `sources` holding a key as is (not `authorization`): what log redaction censors. */
export function keyHeaders(sources: readonly KeySource[]): string[] {
  return sources.map(keyLocation).flatMap((location) => (location.in === 'header' ? [location.name] : []));
}

/** The sources one route reads a key from, in order; built at startup, read per request. */
export class KeyReader {
  /** How a client is told to send a key (`x-api-key: <key> or Authorization: Bearer <key>`). */
  readonly hint: string;
  readonly #sources: readonly Source[];
  readonly #query: readonly Source[];

  /** @throws Error naming a source that is not one (keySourceProblem). */
  constructor(sources: readonly KeySource[]) {
    this.#sources = sources.map(compile);
    this.#query = this.#sources.filter((s) => s.in === 'query');
    this.hint = this.#sources.map((s) => s.how).join(' or ');
  }

  /** The key in the first source that has one; a query key is removed from the query on the way. */
  read(ctx: Context): string | undefined {
    for (const source of this.#sources) {
      let token: string | undefined;
      if (source.in === 'bearer') token = bearer(ctx.get('authorization'));
      else if (source.in === 'header') token = ctx.get(source.name) || undefined;
      else token = dropParam(ctx, source.name, source.marker);
      if (token) return token;
    }
    return undefined;
  }

  /** Removes every query key (a gateway running open reads none, and still forwards none). */
  dropQueryKeys(ctx: Context): void {
    for (const source of this.#query) dropParam(ctx, source.name, source.marker);
  }
}

/** Removes `name` from the query string (it must never be forwarded or logged); returns its value. */
function dropParam(ctx: Context, name: string, marker: string): string | undefined {
  if (!ctx.querystring.includes(marker)) return undefined;
  const query = new URLSearchParams(ctx.querystring);
  const value = query.get(name) ?? undefined;
  if (value === undefined) return undefined;
  query.delete(name);
  ctx.querystring = query.toString();
  return value;
}
