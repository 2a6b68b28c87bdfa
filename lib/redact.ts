/** Secrets out of text before a log line, an error or a record keeps it: URLs' credentials, provider keys an upstream echoes. */
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

/** Shortest api_key treated as a secret: shorter ones are placeholders (`none`, `sk-1234`) found in ordinary words. */
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

/** A secret's other echoed forms: JSON-escaped and percent-encoded. */
function variants(secret: string): string[] {
  const out = [secret];
  const json = JSON.stringify(secret).slice(1, -1);
  if (json !== secret) out.push(json);
  const url = encodeURIComponent(secret);
  if (url !== secret) out.push(url);
  return out;
}

/**
 * One precompiled matcher for every provider's api_key, run over upstream-sourced error text
 * only. It finds a key whole (alone or after `Bearer `), from its first 8 characters on
 * (OpenAI's `sk-proj-****…wxyz`), or masked around 4-7 leading or the last 4 characters.
 * One linear regex scan: each unbounded repeat follows a key's literal or starts a mask run.
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

/** True when `err` may carry an upstream's text: it names a provider or status, is an upstream failure, or is no catalog entry. */
export function upstreamSourced(err: GatewayError): boolean {
  return err.provider !== undefined || err.upstreamStatus !== undefined || err.def === undefined || err.def.upstream;
}

/** Redacts `secrets` out of an upstream-sourced error in place (message, log message, code, param), before anything sees it. */
export function redactError(err: GatewayError, secrets: SecretRedactor): void {
  if (secrets.size === 0 || !upstreamSourced(err)) return;
  err.message = secrets.redact(err.message);
  if (err.logMessage !== undefined) err.logMessage = secrets.redact(err.logMessage);
  if (err.code !== null) err.code = secrets.redact(err.code);
  if (err.upstreamCode !== undefined) err.upstreamCode = secrets.redact(err.upstreamCode);
  if (err.param !== null) err.param = secrets.redact(err.param);
}

/** Every `api_key` in a provider section, at any depth (the replay kind holds its upstream's section). */
export function apiKeysOf(section: unknown, out: string[] = [], depth = 0): string[] {
  if (section === null || typeof section !== 'object' || depth > 8) return out;
  for (const [name, value] of Object.entries(section)) {
    if (name === 'api_key' && typeof value === 'string') out.push(value);
    else if (value !== null && typeof value === 'object') apiKeysOf(value, out, depth + 1);
  }
  return out;
}
