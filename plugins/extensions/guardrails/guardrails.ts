/**
 * The guardrails of one configuration: its compiled checks, which apply to a key, running
 * them on a request's or an answer's text parts, the stream window of a streamed answer, and
 * the secret detector gw's own records are scrubbed with.
 */
import type { ExtensionSetup, TextPart } from 'gw/plugin';
import { type Check, compileChecks, type Phase } from './checks.ts';
import { type GuardrailsConfig, redactsStored } from './config.ts';
import { secretsDetector } from './detectors/secrets.ts';
import { checkParts, checkWebhooks, type Verdict, type WebhookContext } from './engine.ts';
import { CheckScope, type KeyScope } from './scope.ts';
import { type HeldChunk, Window } from './window.ts';

/** A detector gw's scrubber runs over stored text (`secrets.redactStored`). */
type StoredDetector = Parameters<ExtensionSetup<unknown>['secrets']['redactStored']>[0];
type StoredMatch = ReturnType<StoredDetector['find']>[number];

export class Guardrails {
  /** Every check, in config order. */
  readonly checks: readonly Check[];
  /** Whether stored bodies go through the secret detector (`redact_stored`). */
  readonly redactStored: boolean;
  private readonly scope: CheckScope;
  private readonly allow: readonly string[];

  /** @throws UserError for a check that cannot run (a pattern RE2 refuses) */
  constructor(config: GuardrailsConfig) {
    this.checks = compileChecks(config);
    this.redactStored = redactsStored(config);
    this.scope = new CheckScope(this.checks);
    const allow: string[] = [];
    for (const check of Object.values(config.checks)) if (check.type === 'secrets') for (const value of check.allow) allow.push(value);
    this.allow = allow;
  }

  /** The checks that apply to a request of `key`; a shared empty list when none (the request then pays nothing more). */
  checksFor(key: KeyScope | undefined): readonly Check[] {
    return this.scope.checksFor(key);
  }

  /**
   * Runs `checks` that read `phase` over `parts` (a request's or a whole answer's `texts()`):
   * the local ones, then, unless they blocked, the webhooks. Masks are set on the parts.
   */
  async check(parts: readonly TextPart[], phase: Phase, checks: readonly Check[], context: WebhookContext): Promise<Verdict> {
    const local = checkParts(parts, checks, phase);
    if (local.blocked !== undefined) return local;
    const remote = await checkWebhooks(parts, checks, phase, context);
    if (remote.outcomes.length === 0) return local;
    if (local.outcomes.length === 0) return remote;
    return { outcomes: [...local.outcomes, ...remote.outcomes], blocked: remote.blocked, failures: remote.failures };
  }

  /** The step a streamed answer goes through, or undefined when no check of `checks` reads streamed answers. */
  window<C extends HeldChunk>(checks: readonly Check[]): Window<C> | undefined {
    return Window.wanted(checks) ? new Window<C>(checks) : undefined;
  }

  /** The secrets detector as gw's scrubber takes one (`secrets.addDetector`): matches in order, none overlapping, typed by entity. */
  secretDetector(): StoredDetector {
    const detector = secretsDetector({ allow: this.allow });
    return {
      name: 'guardrails-secrets',
      find(text: string) {
        const out: StoredMatch[] = [];
        let at = 0;
        for (const match of detector.find(text)) {
          if (match.start < at) continue;
          out.push({ start: match.start, end: match.end, type: match.entity });
          at = match.end;
        }
        return out;
      },
    };
  }
}
