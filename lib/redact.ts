/**
 * Secrets out of text before it reaches a log line, an error message or a stored record:
 *   - URLs: a password in the userinfo (`redis://user:secret@host`) and credential query
 *     parameters (`?key=`, `api_key`, `token`);
 *   - provider api keys echoed by an upstream in its error text (SecretRedactor).
 */
import type { GatewayError } from '../core/errors.ts';

const QUERY_SECRET = /([?&](?:key|api[-_]?key|token|access_token)=)[^&#]*/gi;

/** `url` with its password and credential query parameters replaced by `***`. */
export function redactUrl(url: string): string {
  let out = url;
  const at = out.indexOf('@');
  if (at > 0 && out.indexOf('//') >= 0 && out.indexOf('//') < at) {
    try {
      const u = new URL(out);
      if (u.password) {
        u.password = '***';
        out = u.toString();
      }
    } catch {
      out = out.replace(/\/\/[^@/]*@/, '//***@');
    }
  }
  return out.indexOf('?') < 0 ? out : out.replace(QUERY_SECRET, '$1***');
}

/**
 * Shortest api_key treated as a secret. Shorter values are placeholders (`none`, `EMPTY`,
 * `sk-1234` for a local server that checks nothing); redacting them would blank ordinary
 * words out of every error. No vendor issues keys this short.
 */
export const MIN_SECRET_CHARS = 8;
/** What an echoed secret becomes. */
export const REDACTED = '[redacted]';

/** Leading characters that identify a key: an echo starting with them is taken for the key, whatever follows. */
const HEAD = 8;
/** Fewest leading characters a masked echo may show (`sk-a****`). */
const SHOWN = 4;
/** Trailing characters a masked echo may show (`****wxyz`). */
const TAIL = 4;
/** A character of a key as vendors issue them. */
const TOKEN = '[A-Za-z0-9_-]';
/** What an upstream masks a key's middle with: `****`, `••••`, `...`, `…`. */
const MASK = '(?:\\*{2,}|\\u2022{2,}|\\.{3,}|\\u2026)';

function escapeRe(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/**
 * The forms a secret may be echoed in besides itself: JSON-escaped (quoted inside a raw body)
 * and percent-encoded (quoted inside a URL). Most keys have neither.
 */
function variants(secret: string): string[] {
  const out = [secret];
  const json = JSON.stringify(secret).slice(1, -1);
  if (json !== secret) out.push(json);
  const url = encodeURIComponent(secret);
  if (url !== secret) out.push(url);
  return out;
}

/**
 * One precompiled matcher for a set of secrets (every provider's api_key), built when the
 * set changes (the runtime snapshot holds one) and run only over upstream-sourced error text,
 * never over a successful answer. It finds a secret in the forms upstreams echo it:
 *   - whole, alone or after `Bearer ` (self-hosted servers and proxies quote the header;
 *     Gemini quotes `Consumer 'api_key:AIza…'` whole);
 *   - starting with its first 8 characters, whatever follows (a masked echo such as OpenAI's
 *     `Incorrect API key provided: sk-proj-****…wxyz`, or a key cut by a length limit);
 *   - masked, showing 4 to 7 leading characters (`sk-abc1****************wxyz`) or only the
 *     last 4 after a mask (`sk-...wxyz`, `****wxyz`).
 * Anthropic, Azure, DashScope and Zhipu answer a bad key without quoting it; their texts pass
 * unchanged. Cost: one regex scan of the text, linear in its length: an unbounded repeat
 * either follows a literal of a key and ends the match, or is a mask run tried from its start only.
 */
export class SecretRedactor {
  /** Number of distinct secrets matched. */
  readonly size: number;
  /** Every form; run when the text holds a mask character. */
  readonly #re: RegExp | undefined;
  /** The whole and head forms only: the masked ones need a mask character to match. */
  readonly #plain: RegExp | undefined;

  constructor(secrets: Iterable<string>) {
    const wholes = new Set<string>();
    const heads = new Set<string>();
    const shown = new Set<string>();
    const tails = new Set<string>();
    let size = 0;
    for (const secret of new Set(secrets)) {
      if (typeof secret !== 'string' || secret.length < MIN_SECRET_CHARS) continue;
      size++;
      for (const v of variants(secret)) {
        wholes.add(v);
        heads.add(escapeRe(v.slice(0, HEAD)));
        // 4 characters, then each of the next 3 optional (8 and more are a head): `sk-a(?:b(?:c(?:1)?)?)?`
        let p = '';
        for (let i = HEAD - 2; i >= SHOWN; i--) p = `(?:${escapeRe(v[i]!)}${p})?`;
        shown.add(escapeRe(v.slice(0, SHOWN)) + p);
        tails.add(escapeRe(v.slice(-TAIL)));
      }
    }
    this.size = size;
    if (size === 0) return;
    // longest first: a secret that is a prefix of another must not leave the other's rest behind
    const whole = [...wholes].sort((a, b) => b.length - a.length).map(escapeRe);
    const plain = [whole.join('|'), `(?:${[...heads].join('|')})(?:${TOKEN}|${MASK})*`];
    this.#plain = new RegExp(plain.join('|'), 'g');
    this.#re = new RegExp(
      [
        ...plain,
        `(?:${[...shown].join('|')})${MASK}${TOKEN}*`,
        // tried only where a token starts, and a mask only where its run starts: otherwise
        // every position inside a long token or a long run of dots would scan it again
        `(?<!${TOKEN})${TOKEN}*(?<![*.\u2022\u2026])${MASK}(?:${[...tails].join('|')})(?!${TOKEN})`,
      ].join('|'),
      'g',
    );
  }

  /** `text` with every echo of a secret replaced by {@link REDACTED}. */
  redact(text: string): string {
    if (this.#re === undefined || text === '') return text;
    // the masked forms cost a look at every position; most texts have no mask to find
    const masked = text.includes('*') || text.includes('\u2022') || text.includes('\u2026') || text.includes('...');
    return text.replace(masked ? this.#re : this.#plain!, REDACTED);
  }
}

/** A redactor that matches nothing. */
export const NO_SECRETS = new SecretRedactor([]);

/**
 * True when `err` may carry text an upstream wrote: it names a provider or an upstream
 * status, is an upstream failure of the catalog, or was not made from the catalog at all
 * (an upstream's 4xx passed on, a plugin's own error). gw's own catalog errors about the
 * request are left alone: they never quote an upstream.
 */
export function upstreamSourced(err: GatewayError): boolean {
  return err.provider !== undefined || err.upstreamStatus !== undefined || err.def === undefined || err.def.upstream;
}

/**
 * Redacts `secrets` out of an upstream-sourced error, in place: its message, its log-safe
 * message, and the `code` and `param` an upstream may have supplied. Run once where a
 * request's failure is decided (core/app.ts, core/pipeline/stream.ts), before any hook,
 * log line or answer sees it.
 */
export function redactError(err: GatewayError, secrets: SecretRedactor): void {
  if (secrets.size === 0 || !upstreamSourced(err)) return;
  err.message = secrets.redact(err.message);
  if (err.logMessage !== undefined) err.logMessage = secrets.redact(err.logMessage);
  if (err.code !== null) err.code = secrets.redact(err.code);
  if (err.upstreamCode !== undefined) err.upstreamCode = secrets.redact(err.upstreamCode);
  if (err.param !== null) err.param = secrets.redact(err.param);
}

/**
 * Every `api_key` string in a provider section, at any depth: a provider may hold the section
 * of another it builds (the replay kind's `[providers.<name>.upstream]`), whose key must be
 * redacted as well as its own.
 */
export function apiKeysOf(section: unknown, out: string[] = [], depth = 0): string[] {
  if (section === null || typeof section !== 'object' || depth > 8) return out;
  for (const [name, value] of Object.entries(section)) {
    if (name === 'api_key' && typeof value === 'string') out.push(value);
    else if (value !== null && typeof value === 'object') apiKeysOf(value, out, depth + 1);
  }
  return out;
}
