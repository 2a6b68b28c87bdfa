/**
 * An alert as gw records and sends it, and the two webhook bodies: Slack's incoming-webhook
 * message (`text` as the fallback and notification line, `blocks` for the layout; Slack's
 * "Sending messages using incoming webhooks") and the generic JSON body, the whole event.
 */
import { rfc3339 } from 'gw/plugin';

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
  return { id: `${dedupe}@${now}`, ...e, time: rfc3339(now), instance };
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
  return {
    text: `${ICON[e.severity]} [gw ${e.severity}] ${e.title}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${ICON[e.severity]} *${escapeMrkdwn(e.title)}*` } },
      { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(facts.join('\n')) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `gw · ${e.rule} · ${e.time} · ${escapeMrkdwn(e.instance)}` }] },
    ],
  };
}

/** Slack asks for &, < and > escaped in message text. */
function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
