/**
 * Running checks on the text parts of a request or a whole answer (the content view's
 * `texts()`): each local check reads each part once; matches of `mask` checks are replaced in
 * one rewrite per part (`part.set`), the first match of a `block` check stops everything, and
 * each hit is counted as an outcome `{check, phase, action, entity, count}`: never the text.
 * Webhook checks then see the parts as the local checks left them (masked secrets stay masked).
 */
import type { TextPart } from 'gw/plugin';
import type { Action, Check, Phase } from './checks.ts';
import type { Match } from './detector.ts';
import { callWebhook, type WebhookCall } from './detectors/webhook.ts';

/** What a check did, counted by entity. */
export interface Outcome {
  readonly check: string;
  readonly phase: Phase;
  readonly action: Action;
  readonly entity: string;
  count: number;
}

/** A block: the check and the entity type the error names. */
export interface Blocked {
  readonly check: string;
  readonly entity: string;
}

/** Everything checks did to one request or answer. */
export interface Verdict {
  readonly outcomes: readonly Outcome[];
  /** Set when a check blocked: nothing may go on. */
  readonly blocked: Blocked | undefined;
  /** Webhook calls that gave no verdict, and why (for the log; the `fail` setting decided the rest). */
  readonly failures: readonly string[];
}

const CLEAN: Verdict = Object.freeze({ outcomes: Object.freeze([]), blocked: undefined, failures: Object.freeze([]) });

/** Outcomes by (check, action, entity), in the order first seen. */
export class Outcomes {
  readonly list: Outcome[] = [];
  private readonly phase: Phase;

  constructor(phase: Phase) {
    this.phase = phase;
  }

  add(check: string, action: Action, entity: string, count = 1): void {
    for (const outcome of this.list) {
      if (outcome.check === check && outcome.action === action && outcome.entity === entity) {
        outcome.count += count;
        return;
      }
    }
    this.list.push({ check, phase: this.phase, action, entity, count });
  }
}

/** A match of a masking check, with what replaces it. */
export interface MaskMatch extends Match {
  readonly placeholder: string;
}

/**
 * `text` with `masks` replaced (ordered by start, then longest first; a match overlapping a
 * kept one is dropped: the kept one already hides it).
 */
export function applyMasks(text: string, masks: readonly MaskMatch[]): string {
  let out = '';
  let at = 0;
  for (const mask of masks) {
    if (mask.start < at) continue;
    out += text.slice(at, mask.start) + mask.placeholder;
    at = mask.end;
  }
  return out + text.slice(at);
}

/** Orders mask matches of several checks: by start, the longest first. */
export function byStart(a: Match, b: Match): number {
  return a.start - b.start || b.end - a.end;
}

/**
 * Runs the local checks of `checks` that read `phase` over `parts`, masking in place.
 * Synchronous; a list without a local check for the phase costs one loop over the checks.
 */
export function checkParts(parts: readonly TextPart[], checks: readonly Check[], phase: Phase): Verdict {
  let local = 0;
  for (const check of checks) if (check.detector !== undefined && (phase === 'request' ? check.request : check.response)) local++;
  if (local === 0) return CLEAN;
  const outcomes = new Outcomes(phase);
  for (const part of parts) {
    const text = part.text;
    if (text === '') continue;
    let masks: MaskMatch[] | undefined;
    for (const check of checks) {
      if (check.detector === undefined || !(phase === 'request' ? check.request : check.response)) continue;
      const found = check.detector.find(text);
      if (found.length === 0) continue;
      for (const match of found) outcomes.add(check.name, check.action, match.entity);
      if (check.action === 'block') return { outcomes: outcomes.list, blocked: { check: check.name, entity: found[0]!.entity }, failures: [] };
      if (check.action === 'mask') {
        masks ??= [];
        for (const match of found) masks.push({ start: match.start, end: match.end, entity: match.entity, placeholder: check.placeholder(match.entity) });
      }
    }
    if (masks !== undefined) part.set(applyMasks(text, masks.sort(byStart)));
  }
  return outcomes.list.length === 0 ? CLEAN : { outcomes: outcomes.list, blocked: undefined, failures: [] };
}

/** What a webhook is told besides the texts. */
export type WebhookContext = Omit<WebhookCall, 'phase' | 'texts'>;

/**
 * The webhook checks of `checks` that read `phase`, one call each (in parallel), over `parts`
 * as they are now; then their verdicts in config order: masks applied, the first block kept.
 */
export async function checkWebhooks(parts: readonly TextPart[], checks: readonly Check[], phase: Phase, context: WebhookContext): Promise<Verdict> {
  const hooks = checks.filter((check) => check.webhook !== undefined && (phase === 'request' ? check.request : check.response));
  if (hooks.length === 0) return CLEAN;
  const texts = parts.map((part) => part.text);
  const answers = await Promise.all(hooks.map((check) => callWebhook(check.webhook!, { phase, texts, ...context })));
  const outcomes = new Outcomes(phase);
  const failures: string[] = [];
  let blocked: Blocked | undefined;
  for (let i = 0; i < hooks.length; i++) {
    const check = hooks[i]!;
    const answer = answers[i]!;
    switch (answer.action) {
      case 'allow':
        break;
      case 'failed':
        failures.push(`${check.name}: ${answer.reason}`);
        if (check.webhook!.fail === 'closed' && check.action !== 'monitor') {
          outcomes.add(check.name, 'block', 'webhook_unavailable');
          blocked ??= { check: check.name, entity: 'webhook_unavailable' };
        } else outcomes.add(check.name, 'monitor', 'webhook_unavailable');
        break;
      case 'monitor':
        outcomes.add(check.name, 'monitor', answer.entity);
        break;
      case 'block':
        outcomes.add(check.name, check.action === 'monitor' ? 'monitor' : 'block', answer.entity);
        if (check.action !== 'monitor') blocked ??= { check: check.name, entity: answer.entity };
        break;
      case 'mask': {
        let changed = 0;
        for (let k = 0; k < parts.length; k++) {
          const replacement = answer.replacements[k];
          if (replacement === null || replacement === undefined || replacement === texts[k]) continue;
          changed++;
          if (check.action !== 'monitor') parts[k]!.set(replacement);
        }
        if (changed > 0) outcomes.add(check.name, check.action === 'monitor' ? 'monitor' : 'mask', answer.entity, changed);
        break;
      }
    }
  }
  return { outcomes: outcomes.list, blocked, failures };
}
