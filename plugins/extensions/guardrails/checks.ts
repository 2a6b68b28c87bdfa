/**
 * Checks compiled from the config: each with its detector (or its webhook), the phases it
 * reads, its action, the keys it applies to and how its placeholders read.
 */
import { UserError } from 'gw/plugin';
import type { CountryCode } from 'libphonenumber-js/max';
import type { CheckConfig, GuardrailsConfig } from './config.ts';
import type { Detector } from './detector.ts';
import { piiDetector } from './detectors/pii.ts';
import { regexDetector } from './detectors/regex.ts';
import { secretsDetector } from './detectors/secrets.ts';
import type { WebhookOptions } from './detectors/webhook.ts';

export type Phase = 'request' | 'response';
export type Action = 'block' | 'mask' | 'monitor';

/** A webhook check's call settings. */
export interface WebhookSettings extends WebhookOptions {
  readonly fail: 'open' | 'closed';
}

/** One configured check, ready to run. */
export interface Check {
  readonly name: string;
  readonly type: CheckConfig['type'];
  readonly action: Action;
  readonly request: boolean;
  readonly response: boolean;
  /** The local detector (`secrets`, `pii`, `regex`); undefined for a webhook. */
  readonly detector: Detector | undefined;
  readonly webhook: WebhookSettings | undefined;
  /** Key names it applies to; undefined with `tags` undefined: every key. */
  readonly keys: ReadonlySet<string> | undefined;
  readonly tags: Readonly<Record<string, string>> | undefined;
  /** What a masked match becomes: `[SECRET:aws-access-key]`, `[EMAIL]`, `[TICKET_ID]`. */
  placeholder(entity: string): string;
}

const secretPlaceholder = (entity: string) => `[SECRET:${entity}]`;
const namedPlaceholder = (entity: string) => `[${entity.toUpperCase()}]`;

/**
 * Every check of `config`, in config order.
 * @throws UserError naming `extensions.guardrails.checks.<name>.<field>` for a pattern RE2 refuses
 */
export function compileChecks(config: GuardrailsConfig): Check[] {
  return Object.entries(config.checks).map(([name, check]) => compileCheck(name, check));
}

function compileCheck(name: string, check: CheckConfig): Check {
  const base = {
    name,
    type: check.type,
    action: check.action,
    request: check.phase.includes('request'),
    response: check.phase.includes('response'),
    keys: check.keys === undefined ? undefined : new Set(check.keys),
    tags: check.tags,
  };
  switch (check.type) {
    case 'secrets':
      return { ...base, detector: secretsDetector({ allow: check.allow }), webhook: undefined, placeholder: secretPlaceholder };
    case 'pii':
      return {
        ...base,
        detector: piiDetector({ entities: check.entities, phoneRegions: check.phone_regions as CountryCode[] }),
        webhook: undefined,
        placeholder: namedPlaceholder,
      };
    case 'regex': {
      let detector: Detector;
      try {
        detector = regexDetector({ patterns: check.patterns, entity: check.entity ?? name, maxLength: check.max_length });
      } catch (err) {
        throw new UserError(`extensions.guardrails.checks.${name}.${(err as Error).message}`);
      }
      return { ...base, detector, webhook: undefined, placeholder: namedPlaceholder };
    }
    case 'webhook':
      return {
        ...base,
        detector: undefined,
        webhook: { url: check.url, headers: check.headers, timeoutMs: check.timeout_ms, maxResponseBytes: check.max_response_bytes, fail: check.fail },
        placeholder: namedPlaceholder,
      };
  }
}
