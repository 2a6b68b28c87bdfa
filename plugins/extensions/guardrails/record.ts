/**
 * What a request's checks did, kept where the rest of gw reads it: the GUARDRAILS fact in
 * `rc.state` (the request log, traces), the `x-gw-guardrails` header, the hits counter. Names,
 * entity types and counts only: the matched text never leaves the check that found it.
 */
import { type EventStep, GUARDRAILS, type GuardrailOutcome, type RequestContext } from 'gw/plugin';
import type { Outcome } from './engine.ts';
import { GUARDRAIL_BLOCKED, guardrailsHeader, type HitCounter } from './report.ts';
import type { Window } from './window.ts';

/** A stream event as the kernel hands it to a step. */
type HeldChunk = Parameters<EventStep['push']>[0];

/** Adds `outcomes` to the request's record, the counter and the header the answer carries; the header's value. */
export function recordOutcomes(rc: RequestContext, outcomes: readonly Outcome[], counter: HitCounter): string | undefined {
  let list = rc.state.get(GUARDRAILS) as GuardrailOutcome[] | undefined;
  if (outcomes.length > 0) {
    if (list === undefined) rc.state.set(GUARDRAILS, (list = []));
    for (const outcome of outcomes)
      list.push({ check: outcome.check, phase: outcome.phase, action: outcome.action, entity: outcome.entity, count: outcome.count });
    counter.add(outcomes);
  }
  const header = list === undefined ? undefined : guardrailsHeader(list);
  if (header !== undefined) rc.responseHeaders = { ...rc.responseHeaders, 'x-gw-guardrails': header };
  return header;
}

/**
 * The stream window as the kernel runs it (hooks.onStream): its block becomes the stream's cut
 * (400 `guardrail_blocked` in the client's error event, or a content-filter finish), and what
 * it found is recorded once, when the stream ends, is cut, or fails.
 */
export class GuardStep implements EventStep {
  cut: ReturnType<typeof GUARDRAIL_BLOCKED> | undefined = undefined;
  private readonly window: Window;
  private readonly rc: RequestContext;
  private readonly counter: HitCounter;
  private recorded = false;

  constructor(window: Window, rc: RequestContext, counter: HitCounter) {
    this.window = window;
    this.rc = rc;
    this.counter = counter;
  }

  push(chunk: HeldChunk): HeldChunk[] {
    const out = this.window.push(chunk);
    if (this.window.cut !== undefined) this.close();
    return out;
  }

  end(): HeldChunk[] {
    const out = this.window.end();
    this.close();
    return out;
  }

  /** Records what the window found (once: at the end, at a cut, or when the stream failed before either). */
  close(): void {
    if (this.recorded) return;
    this.recorded = true;
    const blocked = this.window.cut;
    if (blocked !== undefined) this.cut = GUARDRAIL_BLOCKED({ ...blocked, phase: 'response' });
    recordOutcomes(this.rc, this.window.outcomes, this.counter);
  }
}
