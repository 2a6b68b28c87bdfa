/**
 * An alert and its two webhook bodies: Slack's message (`text`, `blocks`) and the JSON event.
 * Names are bounded and escaped in both: Slack's `&<>` everywhere (a bare `<!channel>` pings),
 * and in JSON those and U+2028/9 as `\u` escapes, so no receiver gets markup.
 */
import { cutText, MAX_MODEL_CHARS, rfc3339 } from 'gw/plugin';

/** An alert's one line, characters at most. */
const TITLE_MAX_CHARS = 1024;
/** A subject's name (a key, a provider, a model), characters at most: a model id's own bound. */
const SUBJECT_MAX_CHARS = MAX_MODEL_CHARS;

/** What raised the alert. */
export type AlertRule = 'budget' | 'circuit' | 'error_rate' | 'latency_p95' | 'key_expiry' | 'test';

/** `critical` needs someone now; `warning` soon; `resolved` ends an earlier alert; `info` is a test. */
export type Severity = 'critical' | 'warning' | 'resolved' | 'info';

/** One alert (the JSON webhook body, and an entry of `GET /v1/alerts`). */
export interface AlertEvent {
  /** Unique per alert (the dedupe key and the time): receivers may drop repeats of a retried delivery by it. */
  id: string;
  rule: AlertRule;
  severity: Severity;
  /** One line: what happened and to what. */
  title: string;
  /** RFC 3339 (UTC) when it fired. */
  time: string;
  /** What it is about: `key`, `provider` or `model`. */
  subject: Record<string, string>;
  /** The numbers behind it (spend, rate, threshold…). */
  details: Record<string, string | number | boolean | null>;
  /** The gw instance that fired it (host:pid), for operators running several. */
  instance: string;
}

/** Builds an event; `dedupe` names the alert (rule and subject), `now` is epoch ms. */
export function alertEvent(
  dedupe: string,
  now: number,
  instance: string,
  e: Pick<AlertEvent, 'rule' | 'severity' | 'title' | 'subject' | 'details'>,
): AlertEvent {
  const subject: Record<string, string> = {};
  for (const [k, v] of Object.entries(e.subject)) subject[k] = cutText(v, SUBJECT_MAX_CHARS);
  return { id: `${dedupe}@${now}`, ...e, title: cutText(e.title, TITLE_MAX_CHARS), subject, time: rfc3339(now), instance };
}

const ICON: Record<Severity, string> = {
  critical: ':red_circle:',
  warning: ':large_orange_circle:',
  resolved: ':large_green_circle:',
  info: ':information_source:',
};

/** Slack's message shape: `text` (notifications, fallback) and section + context blocks. */
export function slackBody(e: AlertEvent): { text: string; blocks: unknown[] } {
  const facts = [...Object.entries(e.subject), ...Object.entries(e.details)].map(([k, v]) => `*${k}*: ${v ?? '–'}`);
  const title = escapeMrkdwn(e.title);
  return {
    text: `${ICON[e.severity]} [gw ${e.severity}] ${title}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${ICON[e.severity]} *${title}*` } },
      { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(facts.join('\n')) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `gw · ${e.rule} · ${escapeMrkdwn(e.time)} · ${escapeMrkdwn(e.instance)}` }] },
    ],
  };
}

/** Slack asks for &, < and > escaped in message text ("Escaping text"): then no `<…>` is a mention or a link. */
function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const JSON_UNSAFE = /[<>&\u2028\u2029]/g;

/** The JSON webhook body: the event, with `<`, `>`, `&`, U+2028 and U+2029 written as `\u` escapes (the same values once parsed). */
export function jsonBody(e: AlertEvent): string {
  return JSON.stringify(e).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
