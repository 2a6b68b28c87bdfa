/** Secrets out of kept text (a cassette): every secret gw knows, and what its detectors find; one per gateway (`secrets`). */
import { keyFormats, type SecretDetector, type SecretMatch } from './key-formats.ts';

/** What a plugin may do with the gateway's secrets: hide them, never read them. */
export interface SecretScrubber {
  /** `text` with known secrets as `[redacted]`, detectors' findings as `[redacted:<type>]`; idempotent, linear. */
  scrub(text: string): string;
  /** Runs `detector` in every later `scrub` (e.g. a guardrails extension's secret detector). */
  addDetector(detector: SecretDetector): void;
  /**
   * A request's or an answer's text a plugin stores (a body in the request log, the logging
   * line, a trace's captured content): through `scrub` once an extension asked for it with
   * {@link redactStored} (guardrails' `redact_stored`), else the text itself, at no cost.
   */
  stored(text: string): string;
  /** From now on {@link stored} scrubs, with `detector` added (the guardrails checks' own detectors). */
  redactStored(detector: SecretDetector): void;
}

/** Replaces known secrets in a text (a SecretRedactor of the current snapshot's secrets). */
export interface KnownSecrets {
  redact(text: string): string;
}

/** The gateway's scrubber: `known()` read per call (reloads change it), then each detector in order, key formats first. */
export function createScrubber(known: () => KnownSecrets): SecretScrubber {
  const detectors: SecretDetector[] = [keyFormats];
  // the detectors stored text goes through: the scrub's, and those only stored text needs
  let storedDetectors: SecretDetector[] | undefined;
  const scrubWith = (list: readonly SecretDetector[], text: string): string => {
    let out = known().redact(text);
    for (const d of list) out = replaceMatches(out, d.find(out));
    return out;
  };
  return {
    scrub: (text) => scrubWith(detectors, text),
    addDetector(detector) {
      if (!detectors.includes(detector)) detectors.push(detector);
      if (storedDetectors !== undefined && !storedDetectors.includes(detector)) storedDetectors.push(detector);
    },
    stored: (text) => (storedDetectors === undefined ? text : scrubWith(storedDetectors, text)),
    redactStored(detector) {
      storedDetectors ??= [...detectors];
      if (!storedDetectors.includes(detector)) storedDetectors.push(detector);
    },
  };
}

/** `text` with each match replaced by `[redacted:<type>]` (matches in order, not overlapping; others skipped). */
export function replaceMatches(text: string, matches: readonly SecretMatch[]): string {
  if (matches.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const m of matches) {
    if (m.start < at || m.end <= m.start) continue;
    parts.push(text.slice(at, m.start), `[redacted:${m.type}]`);
    at = m.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}
