/**
 * A secret detector for credentials in their vendors' published formats: a key pasted into a
 * prompt, quoted in a tool result or echoed by an upstream is found by its shape, whether gw
 * knows it or not. What it finds is replaced before a cassette is written (the recorder), and
 * any other detector (a guardrails extension's) can be added beside it (`SecretScrubber`).
 * Formats are matched from their fixed prefix: text that merely looks random is left alone.
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

/** [type, pattern]: the specific prefixes before the generic `sk-` one (alternation tries them in order). */
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
  // Zhipu: 32 hex digits, a dot, 16 characters
  ['zhipu_key', '[0-9a-f]{32}\\.[A-Za-z0-9]{16}'],
  ['jwt', `eyJ[${TOKEN}]{8,}\\.eyJ[${TOKEN}]{8,}\\.[${TOKEN}]{8,}`],
  // bounded: an unterminated block must not make the scan quadratic
  ['private_key', '-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[\\s\\S]{0,16384}?-----END [A-Z ]{0,40}PRIVATE KEY-----'],
];

/**
 * One regex for all: a group per format, each starting where no key character precedes, or
 * right after a JSON escape (`\n`, `\t`…: a key at the start of a line in JSON text).
 */
const ALL = new RegExp(`(?:(?<![${TOKEN}])|(?<=\\\\[nrtbf]))(?:${FORMATS.map(([, p]) => `(${p})`).join('|')})(?![${TOKEN}])`, 'g');

/** The built-in detector of credentials in their vendors' formats (see the file comment). */
export const keyFormats: SecretDetector = {
  name: 'key-formats',
  find(text) {
    const out: SecretMatch[] = [];
    for (const m of text.matchAll(ALL)) {
      let group = 1;
      while (m[group] === undefined) group++;
      out.push({ start: m.index, end: m.index + m[0].length, type: FORMATS[group - 1]![0] });
    }
    return out;
  },
};
