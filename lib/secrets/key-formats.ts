/**
 * A secret detector of credentials in their vendors' published formats, matched from their fixed
 * prefix (random-looking text is left alone): found whether gw knows the key or not.
 */

/** One secret found in a text: `text.slice(start, end)`, and what kind of secret it is. */
export interface SecretMatch {
  start: number;
  end: number;
  /** e.g. `openai_key`, `aws_access_key_id`: the replacement names it (`[redacted:openai_key]`). */
  type: string;
}

/** Finds secrets in a text. Pure and linear in the text's length. */
export interface SecretDetector {
  readonly name: string;
  /** Every secret in `text`, in order, not overlapping. */
  find(text: string): SecretMatch[];
}

/** A key's character (vendors issue keys of these). */
const TOKEN = 'A-Za-z0-9_\\-';
const TOKEN_CHAR = /[A-Za-z0-9_-]/;

/**
 * [type, pattern], each starting with a literal so the regex engine skips ahead to candidates
 * (why: docs/benchmarks.md#record-and-replay); the specific prefixes before the generic `sk-`.
 */
const FORMATS: ReadonlyArray<readonly [string, string]> = [
  ['anthropic_key', `sk-ant-[a-z]{3,6}\\d{2}-[${TOKEN}]{20,}`],
  ['openai_key', `sk-(?:proj|svcacct|admin)-[${TOKEN}]{20,}`],
  // OpenAI's legacy keys, DashScope's, DeepSeek's, and gw's own gateway keys and admin token
  ['api_key', `sk-[${TOKEN}]{20,}`],
  ['google_api_key', `AIza[${TOKEN}]{35}`],
  ['google_oauth_token', `ya29\\.[${TOKEN}]{20,}`],
  ['aws_access_key_id', '(?:AKIA|ASIA)[0-9A-Z]{16}'],
  ['github_token', 'gh[pousr]_[A-Za-z0-9]{36,}'],
  ['github_token', 'github_pat_[A-Za-z0-9_]{40,}'],
  ['slack_token', 'xox[abposr]-[A-Za-z0-9-]{10,}'],
  ['stripe_key', '[rs]k_live_[A-Za-z0-9]{20,}'],
  ['huggingface_token', 'hf_[A-Za-z0-9]{30,}'],
  ['groq_key', 'gsk_[A-Za-z0-9]{20,}'],
  ['xai_key', 'xai-[A-Za-z0-9]{20,}'],
  ['jwt', `eyJ[${TOKEN}]{8,}\\.eyJ[${TOKEN}]{8,}\\.[${TOKEN}]{8,}`],
  // bounded: an unterminated block must not make the scan quadratic
  ['private_key', '-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[\\s\\S]{0,16384}?-----END [A-Z ]{0,40}PRIVATE KEY-----'],
];

const ALL = new RegExp(FORMATS.map(([, p]) => `(${p})`).join('|'), 'g');
/** Zhipu: 32 hex digits, a dot, 16 characters; found from its dot (a hex run alone is everywhere: ids, hashes). */
const ZHIPU = new RegExp(`(?<=[0-9a-f]{32})\\.[A-Za-z0-9]{16}(?![${TOKEN}])`, 'g');
const ZHIPU_ID = 32;

/** True when a key may start at `at`: no key character before it, unless it ends a JSON escape (`\\n`). */
function startsToken(text: string, at: number): boolean {
  if (at === 0 || !TOKEN_CHAR.test(text[at - 1]!)) return true;
  return at >= 2 && text[at - 2] === '\\' && 'nrtbf'.includes(text[at - 1]!);
}

/** The built-in detector of credentials in their vendors' formats (see the file comment). */
export const keyFormats: SecretDetector = {
  name: 'key-formats',
  find(text) {
    const out: SecretMatch[] = [];
    for (const m of text.matchAll(ALL)) {
      const end = m.index + m[0].length;
      // inside a longer word (`risk-…`), or a fixed-length format followed by more key characters
      if (!startsToken(text, m.index) || (end < text.length && TOKEN_CHAR.test(text[end]!))) continue;
      let group = 1;
      while (m[group] === undefined) group++;
      out.push({ start: m.index, end, type: FORMATS[group - 1]![0] });
    }
    if (text.includes('.')) {
      for (const m of text.matchAll(ZHIPU)) {
        const start = m.index - ZHIPU_ID;
        if (startsToken(text, start)) out.push({ start, end: m.index + m[0].length, type: 'zhipu_key' });
      }
      if (out.length > 1) out.sort((a, b) => a.start - b.start);
    }
    return out;
  },
};
