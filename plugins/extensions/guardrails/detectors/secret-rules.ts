/**
 * The rules of `@secretlint/secretlint-rule-preset-recommend` a `secrets` check runs, each with
 * the literal every match of it contains (its opener): a rule runs on a text only when its
 * opener is there, so a prompt without a candidate costs one search per rule, not the rule's
 * patterns. test/unit/guardrails-secrets.test.ts fails when the preset gains a rule this table
 * does not name, and checks the result against `@secretlint/core`'s own `lintSource`.
 */
import type { SecretLintRuleCreator } from '@secretlint/types';
import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';

/** Rule ids past the preset's `@secretlint/secretlint-rule-` prefix → their opener; null: never run on prompt text. */
export const OPENERS: Readonly<Record<string, RegExp | null>> = {
  aws: /A3T|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|secret|account/i,
  // reads `.json` and `.p12` files only; a service account's key is the privatekey rule's
  gcp: null,
  npm: /x-oauth-basic|_authToken=|npm_/,
  slack: /xox|xapp|hooks\.slack\.com/i,
  basicauth: /:\/\//,
  openai: /sk-/,
  anthropic: /sk-ant-/,
  groq: /gsk_/,
  huggingface: /hf_/,
  linear: /lin_api_/,
  notion: /ntn_/,
  privatekey: /PRIVATE KEY/,
  sendgrid: /SG\./,
  shopify: /shp(?:pa|ca|at|ss)_/,
  stripe: /[rs]k_(?:live|test)_/,
  github: /gh[pousr]_|github_pat_/,
  gitlab: /glpat-/,
  grafana: /glc_|glsa_/,
  '1password': /ops_ey/,
  'database-connection-string': /mongodb|mysql|postgres/i,
  'hashicorp-vault': /hv[sbr]\./,
  vercel: /vc[piark]_/,
  databricks: /dapi/,
  docker: /dckr_pat_/,
  figma: /figd_/,
  cloudflare: /cf(?:k|ut|at)_/,
  tailscale: /tskey-/,
  // a filter, not a scanner: a `secretlint-disable` comment in a prompt would switch detection off
  'filter-comments': null,
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

/** The preset's rules a `secrets` check runs, with their opener and options. */
export function scannerRules(): Array<{ id: string; rule: SecretLintRuleCreator; opener: RegExp; options: Record<string, unknown> }> {
  const out: Array<{ id: string; rule: SecretLintRuleCreator; opener: RegExp; options: Record<string, unknown> }> = [];
  for (const rule of presetRules as SecretLintRuleCreator[]) {
    const id = rule.meta.id.slice(PREFIX.length);
    const opener = OPENERS[id];
    if (opener === null) continue;
    // a rule this table does not know yet runs on every text: slower, never blind
    out.push({ id, rule, opener: opener ?? /[\s\S]/, options: RULE_OPTIONS[id] ?? {} });
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
