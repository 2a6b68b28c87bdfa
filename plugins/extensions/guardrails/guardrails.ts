/**
 * The guardrails of one configuration: its compiled checks, which apply to a key, running
 * them on a request's or an answer's text parts, the stream window of a streamed answer, and
 * the detector gw's own records are scrubbed with.
 */
import type { ExtensionSetup, TextPart } from 'gw/plugin';
import { type Check, compileChecks, type Phase } from './checks.ts';
import { type GuardrailsConfig, redactsStored } from './config.ts';
import { type Detector, type Match, mergeMatches } from './detector.ts';
import { byStart, checkParts, checkWebhooks, type Verdict, type WebhookContext } from './engine.ts';
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

  /** @throws UserError for a check that cannot run (a pattern RE2 refuses) */
  constructor(config: GuardrailsConfig) {
    this.checks = compileChecks(config);
    this.redactStored = redactsStored(config);
    this.scope = new CheckScope(this.checks);
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

  /** Whether any check of `checks` reads `phase` (else the phase costs nothing). */
  reads(checks: readonly Check[], phase: Phase): boolean {
    for (const check of checks) if (phase === 'request' ? check.request : check.response) return true;
    return false;
  }

  /** The step a streamed answer goes through, or undefined when no check of `checks` reads streamed answers. */
  window<C extends HeldChunk>(checks: readonly Check[]): Window<C> | undefined {
    return Window.wanted(checks) ? new Window<C>(checks) : undefined;
  }

  /**
   * Every local check's detector as gw's scrubber takes one (`secrets.redactStored`), for the
   * bodies gw stores: matches of every check in order, none overlapping, each typed by entity.
   */
  storedDetector(): StoredDetector {
    const detectors: Detector[] = [];
    for (const check of this.checks) if (check.detector !== undefined) detectors.push(check.detector);
    return {
      name: 'guardrails',
      find(text: string) {
        let found: Match[] = [];
        for (const detector of detectors) found = mergeMatches(found, detector.find(text));
        const out: StoredMatch[] = [];
        let at = 0;
        for (const match of found.sort(byStart)) {
          if (match.start < at) continue;
          out.push({ start: match.start, end: match.end, type: match.entity });
          at = match.end;
        }
        return out;
      },
    };
  }
}
