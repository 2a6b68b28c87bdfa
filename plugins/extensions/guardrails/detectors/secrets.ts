/**
 * Credentials in text: the rules of secretlint's recommended preset, run in-process and
 * synchronously through secretlint's rule contract (`create(context).file(source)`), beside
 * gw's own key formats (`keyFormats`: gateway keys, Groq, xAI, Google…). `@secretlint/core`'s
 * `lintSource` runs the same rules but is async only and costs about a millisecond a call
 * (an event emitter, a promise per rule and a profiler mark per step), too much for each text
 * part of a prompt and for each streamed event; the rules themselves are synchronous.
 */
import type { SecretLintRuleContext, SecretLintRuleReportDescriptor, SecretLintRuleReportHandler, SecretLintSourceCode } from '@secretlint/types';
import { keyFormats } from 'gw/plugin';
import { type Detector, type Match, trailingRun } from '../detector.ts';
import { LEAD, scannerRules, secretEntity } from './secret-rules.ts';

/** The text a rule reads, as secretlint's source code: no file, plain text. */
class TextSource implements SecretLintSourceCode {
  readonly hasBOM = false;
  readonly filePath = undefined;
  readonly physicalFilePath = undefined;
  readonly contentType = 'text' as const;
  readonly ext = '';
  content = '';
  getFilePath(): undefined {
    return undefined;
  }
  getPhysicalFilePath(): undefined {
    return undefined;
  }
  locationToRange(): never {
    throw new Error('not available to guardrails rules');
  }
  rangeToLocation(): never {
    throw new Error('not available to guardrails rules');
  }
  positionToIndex(): never {
    throw new Error('not available to guardrails rules');
  }
  indexToPosition(): never {
    throw new Error('not available to guardrails rules');
  }
}

/** What a rule reports, relocated onto the secret itself (some rules report the whole `KEY=value` line's start with the value's length). */
function located(text: string, report: SecretLintRuleReportDescriptor): { start: number; end: number } {
  const [start, end] = report.range;
  const data = report.message.data as Record<string, unknown> | undefined;
  if (data !== undefined) {
    for (const value of Object.values(data)) {
      if (typeof value !== 'string' || value === '') continue;
      if (text.startsWith(value, start)) return { start, end: start + value.length };
      const at = text.indexOf(value, start);
      if (at !== -1 && at - start <= 512) return { start: at, end: at + value.length };
    }
  }
  return { start, end };
}

/** Key formats gw knows (lib/secrets): `anthropic_key` → `anthropic-key`. */
const KEY_FORMAT_ENTITY: Readonly<Record<string, string>> = {
  aws_access_key_id: 'aws-access-key',
  private_key: 'private-key',
};

/** Longest single-token secret the rules find whole (1Password service tokens: 1,296 characters), but one: */
const TOKEN_MAX = 1400;
/** GitHub app installation tokens (`ghs_<id>_<JWT>`): up to 12,030 characters, held that long only after their prefix. */
const GHS_MAX = 12_100;
/** Longest private key block: the privatekey rule's 10,000 characters of body, gw's key formats' 16,384. */
const PEM_MAX = 16_500;
const PEM_END = /-----END[ A-Z]{0,40}-----/g;
/** `aws_secret_access_key = "…"`, `"AWS_ACCOUNT_ID": "…"`: values the AWS rule finds after a name and spaces. */
const ASSIGNED = /secret_?access_?key|account_?id/gi;
const ASSIGNED_MAX = 120;

const notSpace = (c: number) => !(c === 32 || c === 10 || c === 13 || c === 9 || c === 12 || c === 11);

/** Settings of a `secrets` check. */
export interface SecretsOptions {
  /** Exact values never reported (documentation examples, test fixtures' keys). */
  readonly allow: readonly string[];
}

/**
 * The detector of a `secrets` check. Entities are the rule's finding in kebab case
 * (`aws-access-key`, `github-token`, `private-key`, `anthropic-key`…).
 */
export function secretsDetector(options: SecretsOptions): Detector {
  const allow = new Set(options.allow);
  const source = new TextSource();
  let sink: Match[] = [];
  /** Where `source.content` starts in the text being scanned. */
  let offset = 0;
  const rules = scannerRules();
  const runners: Array<{ reach: number; handler: SecretLintRuleReportHandler }> = [];
  for (const { rule, reach, options: ruleOptions } of rules) {
    const context: SecretLintRuleContext = {
      sharedOptions: {},
      // messages are never rendered: they would carry the secret
      createTranslator: () => ((messageId: string, data: unknown) => ({ message: messageId, messageId, data })) as never,
      report(report) {
        const { start, end } = located(source.content, report);
        sink.push({ start: offset + start, end: offset + end, entity: secretEntity(report.message.messageId) });
      },
      ignore() {},
    };
    runners.push({ reach, handler: rule.create(context, ruleOptions as never) });
  }
  // every opener in one search; at each hit, which rules open there (one opener may hide another: `sk-` and `sk-ant-`)
  const anyOpener = new RegExp(rules.map((r) => r.opener.source).join('|'), 'g');
  const hits: number[][] = rules.map(() => []);

  /**
   * Runs a rule on the text around its openers (from LEAD before one to its reach after,
   * overlapping windows merged), so a long prompt costs a rule a few short windows, not a
   * pass over it. A match the window's edge cut is dropped: the window holds any whole one.
   */
  const runAround = (runner: { reach: number; handler: SecretLintRuleReportHandler }, positions: readonly number[], text: string, found: Match[]): void => {
    sink = found;
    let i = 0;
    while (i < positions.length) {
      const from = Math.max(0, positions[i]! - LEAD);
      let to = Math.min(text.length, positions[i]! + runner.reach);
      for (i++; i < positions.length && positions[i]! - LEAD <= to; i++) to = Math.min(text.length, positions[i]! + runner.reach);
      const before = found.length;
      offset = from;
      source.content = from === 0 && to === text.length ? text : text.slice(from, to);
      void runner.handler.file?.(source);
      if (from === 0 && to === text.length) continue;
      let kept = before;
      for (let k = before; k < found.length; k++) {
        const match = found[k]!;
        if ((from === 0 || match.start > from) && (to === text.length || match.end < to)) found[kept++] = match;
      }
      found.length = kept;
    }
  };

  return {
    find(text) {
      const found: Match[] = [];
      for (const list of hits) list.length = 0;
      anyOpener.lastIndex = 0;
      for (let hit = anyOpener.exec(text); hit !== null; hit = anyOpener.exec(text)) {
        for (let i = 0; i < rules.length; i++) {
          const opener = rules[i]!.opener;
          opener.lastIndex = hit.index;
          if (opener.test(text)) hits[i]!.push(hit.index);
        }
        // openers may overlap: look again from the next character
        anyOpener.lastIndex = hit.index + 1;
      }
      try {
        for (let i = 0; i < runners.length; i++) if (hits[i]!.length > 0) runAround(runners[i]!, hits[i]!, text, found);
      } finally {
        source.content = '';
        sink = [];
        offset = 0;
      }
      for (const m of keyFormats.find(text)) found.push({ start: m.start, end: m.end, entity: KEY_FORMAT_ENTITY[m.type] ?? m.type.replaceAll('_', '-') });
      found.sort((a, b) => a.start - b.start || b.end - a.end);
      // one finding per secret: secretlint's rules and gw's key formats often both know it
      const kept: Match[] = [];
      let at = 0;
      for (const match of found) {
        if (match.start < at || (allow.size > 0 && allow.has(text.slice(match.start, match.end)))) continue;
        kept.push(match);
        at = match.end;
      }
      return kept;
    },
    pending(text) {
      let from = trailingRun(text, notSpace, TOKEN_MAX);
      const ghs = text.lastIndexOf('ghs_');
      if (ghs !== -1 && ghs < from && text.length - ghs <= GHS_MAX && trailingRun(text, notSpace, GHS_MAX) <= ghs) from = ghs;
      const begin = text.lastIndexOf('-----BEGIN');
      if (begin !== -1 && begin < from && text.length - begin <= PEM_MAX) {
        PEM_END.lastIndex = begin;
        if (!PEM_END.test(text)) from = begin;
      }
      ASSIGNED.lastIndex = Math.max(0, text.length - ASSIGNED_MAX);
      const assigned = ASSIGNED.exec(text);
      // the name may follow a quote and `AWS_`: hold from a few characters before it
      if (assigned !== null) from = Math.min(from, Math.max(0, assigned.index - 6));
      return from;
    },
  };
}
