/**
 * Headers a cassette keeps: an allow-list, never a deny-list (a deny-list leaks the header
 * nobody thought of: a project id, a session cookie). What is not listed is dropped, and a
 * name that looks like a credential or an account's identity can never be added.
 */

/** Request headers kept: what selects the upstream's behaviour, nothing that identifies the caller. */
export const REQUEST_HEADERS: readonly string[] = ['content-type', 'accept', 'anthropic-version', 'anthropic-beta', 'openai-beta'];
/** Response headers kept: what a client or gw reads from an answer (its type, retry hints, rate-limit state). */
export const RESPONSE_HEADERS: readonly string[] = ['content-type', 'retry-after', 'x-should-retry', 'request-id', 'x-request-id'];
/** Response header prefixes kept: rate-limit state (numbers and reset times). */
const RESPONSE_PREFIXES: readonly string[] = ['x-ratelimit-', 'anthropic-ratelimit-'];

/** A header name that may carry a credential, a session or an account's identity. */
export const NEVER_KEPT = /auth|cookie|key|token|secret|session|organi[sz]ation|project|account|user/i;

/** An allow-list of header names (lower-case) for one direction, with extra names a config adds. */
export class HeaderAllowList {
  readonly #names: ReadonlySet<string>;
  readonly #prefixes: readonly string[];

  /** @throws Error naming the first extra header that looks like a credential (NEVER_KEPT). */
  constructor(names: readonly string[], prefixes: readonly string[] = [], extra: readonly string[] = []) {
    for (const name of extra)
      if (NEVER_KEPT.test(name)) throw new Error(`header '${name}' looks like a credential or an account's identity and is never recorded`);
    this.#names = new Set([...names, ...extra.map((n) => n.toLowerCase())]);
    this.#prefixes = prefixes;
  }

  /** The headers of `headers` on the list, lower-case names, values as one string. */
  keep(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [raw, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      const name = raw.toLowerCase();
      if (!this.#names.has(name) && !this.#prefixes.some((p) => name.startsWith(p))) continue;
      out[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return out;
  }
}

/** The default lists, with `extra` names added to both. */
export function headerLists(extra: readonly string[] = []): { request: HeaderAllowList; response: HeaderAllowList } {
  return { request: new HeaderAllowList(REQUEST_HEADERS, [], extra), response: new HeaderAllowList(RESPONSE_HEADERS, RESPONSE_PREFIXES, extra) };
}
