/**
 * The rules of `@secretlint/secretlint-rule-preset-recommend` a `secrets` check runs, each with
 * what every match of it starts with or contains (its opener): a rule runs on a text only
 * when its opener is there, so a prompt without a candidate costs one search for all openers
 * at once, not the rules' patterns. test/unit/guardrails-detectors.test.ts fails when the preset gains a rule this table
 * does not name, and checks the result against `@secretlint/core`'s own `lintSource`.
 */
import type { SecretLintRuleCreator } from '@secretlint/types';
import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';

/** `[Hh][Oo]…`: `word` in any case (the rules that match case-insensitively). */
function caseless(word: string): string {
  let out = '';
  for (const ch of word) out += ch.toLowerCase() === ch.toUpperCase() ? ch.replace(/[.+]/, '\\$&') : `[${ch.toUpperCase()}${ch.toLowerCase()}]`;
  return out;
}

/**
 * Rule ids past the preset's `@secretlint/secretlint-rule-` prefix → their opener (regex
 * source, the rule's own literals and case), or null: never run on prompt text. Where a
 * rule's patterns need more than a literal (a URL's `user:password@`, an assignment), the
 * opener says so too: a URL or the word "secret" alone runs no rule.
 */
export const OPENERS: Readonly<Record<string, string | null>> = {
  aws: `A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)|(?:ACCOUNT|account|Account)_?(?:ID|id|Id)?["']?\\s*(?::|=>|=)`,
  // reads `.json` and `.p12` files only; a service account's key is the privatekey rule's
  gcp: null,
  npm: 'x-oauth-basic|_authToken=|npm_',
  slack: `xox[bpaor]-|xapp-|${caseless('hooks.slack.com')}`,
  basicauth: '(?:https?|ftps?)://[-a-zA-Z0-9_]{1,256}:[-a-zA-Z0-9_]{1,256}@',
  openai: 'sk-',
  anthropic: 'sk-ant-',
  groq: 'gsk_',
  huggingface: 'hf_',
  linear: 'lin_api_',
  notion: 'ntn_',
  privatekey: 'PRIVATE KEY',
  sendgrid: 'SG\\.',
  shopify: 'shp(?:pa|ca|at|ss)_',
  stripe: '[rs]k_(?:live|test)_',
  github: 'gh[pousr]_|github_pat_',
  gitlab: 'glpat-',
  grafana: 'glc_|glsa_',
  '1password': 'ops_ey',
  'database-connection-string': `(?:${caseless('mongodb')}(?:\\+[Ss][Rr][Vv])?|${caseless('mysql')}[Xx]?|${caseless('postgres')}(?:[Qq][Ll])?)://[^:/\\s]{1,100}:[^@/\\s]{1,200}@`,
  'hashicorp-vault': 'hv[sbr]\\.',
  vercel: 'vc[piark]_',
  databricks: 'dapi',
  docker: 'dckr_pat_',
  figma: 'figd_',
  cloudflare: 'cf(?:k|ut|at)_',
  tailscale: 'tskey-',
  // a filter, not a scanner: a `secretlint-disable` comment in a prompt would switch detection off
  'filter-comments': null,
};

/** Characters before an opener a match may start at (the AWS rule's `"AWS_` before `SECRET`, npm's URL before `x-oauth-basic`, a private key's `-----BEGIN OPENSSH `). */
export const LEAD = 280;

/** Characters from an opener to the end of the rule's longest match, where more than 512. */
const REACH: Readonly<Record<string, number>> = {
  github: 12_100,
  privatekey: 10_200,
  '1password': 1400,
  'database-connection-string': 1100,
  slack: 1100,
  basicauth: 800,
};

/** Options a rule gets: AWS access key ids are found too (the preset reads only secret access keys by default). */
export const RULE_OPTIONS: Readonly<Record<string, Record<string, unknown>>> = {
  aws: { enableIDScanRule: true },
};

const PREFIX = '@secretlint/secretlint-rule-';

/** The preset's rule ids, short (`aws`, `github`…). */
export function presetRuleIds(): string[] {
  return (presetRules as SecretLintRuleCreator[]).map((rule) => rule.meta.id.slice(PREFIX.length));
}

/** A rule a `secrets` check runs: its opener (sticky: tested at one offset), how far its matches reach past it, its options. */
export interface ScannerRule {
  readonly id: string;
  readonly rule: SecretLintRuleCreator;
  readonly opener: RegExp;
  readonly reach: number;
  readonly options: Record<string, unknown>;
}

/** The preset's rules a `secrets` check runs. */
export function scannerRules(): ScannerRule[] {
  const out: ScannerRule[] = [];
  for (const rule of presetRules as SecretLintRuleCreator[]) {
    const id = rule.meta.id.slice(PREFIX.length);
    const opener = OPENERS[id];
    if (opener === null) continue;
    // a rule this table does not know yet runs on every text: slower, never blind
    out.push({
      id,
      rule,
      opener: new RegExp(opener ?? '[\\s\\S]', 'y'),
      reach: opener === undefined ? Number.POSITIVE_INFINITY : (REACH[id] ?? 512),
      options: RULE_OPTIONS[id] ?? {},
    });
  }
  return out;
}

/** Entity names that read better than the rule's message id; others are the message id in kebab case. */
const ENTITY_NAMES: Readonly<Record<string, string>> = {
  AWSAccessKeyID: 'aws-access-key',
  AWSSecretAccessKey: 'aws-secret-key',
  AWSAccountID: 'aws-account-id',
  PrivateKey: 'private-key',
  PackageJSON_xOauthToken: 'github-token',
  Npmrc_authToken: 'npm-token',
  NPM_ACCESS_TOKEN: 'npm-token',
  OPENAI_TOKEN: 'openai-key',
  ANTHROPIC_API_KEY: 'anthropic-key',
  GROQ_API_KEY: 'groq-key',
  BasicAuth: 'basic-auth',
  IncomingWebhook: 'slack-webhook',
  MongoDBConnection: 'database-url',
  MySQLConnection: 'database-url',
  PostgreSQLConnection: 'database-url',
};

/** The entity a rule's message id reports: `GITHUB_TOKEN` → `github-token`, `AWSAccessKeyID` → `aws-access-key`. */
export function secretEntity(messageId: string): string {
  const named = ENTITY_NAMES[messageId];
  if (named !== undefined) return named;
  return messageId
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();
}
