/**
 * An external checker: gw POSTs `{phase, texts, key, model}` (JSON) and reads back
 * `{action, replacements?, entity?}`:
 * - `action`: `allow` (nothing found), `block`, `mask` (then `replacements`: one entry per text,
 *   the text to send instead or null to keep it) or `monitor` (record only);
 * - `entity`: what was found, for outcomes and errors (`[a-z0-9_-]`, 64 at most; default `webhook`).
 * A timeout, a non-2xx status, an answer larger than the cap or not of this shape is a
 * failure, which the check's `fail` setting turns into a block (`closed`) or a pass that is
 * recorded (`open`).
 */
import { type Dispatcher, request } from 'undici';

/** What a checker's answer asks for, checked. */
export type WebhookVerdict =
  | { readonly action: 'allow' }
  | { readonly action: 'block' | 'monitor'; readonly entity: string }
  | { readonly action: 'mask'; readonly entity: string; readonly replacements: ReadonlyArray<string | null> };

/** A call that did not give a verdict, and why (for the log: never the texts). */
export interface WebhookFailure {
  readonly action: 'failed';
  readonly reason: string;
}

/** What gw tells the checker. */
export interface WebhookCall {
  readonly phase: 'request' | 'response';
  readonly texts: readonly string[];
  /** The gateway key's name (never its secret). */
  readonly key: string | undefined;
  readonly model: string;
}

export interface WebhookOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** The connection pool (tests and gw's shared agent); default undici's global one. */
  readonly dispatcher?: Dispatcher;
}

const ENTITY = /^[a-z0-9_-]{1,64}$/;

/** Calls the checker once; never throws (a failure is a result). */
export async function callWebhook(options: WebhookOptions, call: WebhookCall): Promise<WebhookVerdict | WebhookFailure> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let text: string;
  try {
    const res = await request(options.url, {
      method: 'POST',
      headers: { ...options.headers, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ phase: call.phase, texts: call.texts, key: call.key ?? null, model: call.model }),
      signal,
      dispatcher: options.dispatcher,
    });
    if (res.statusCode < 200 || res.statusCode > 299) {
      await res.body.dump();
      return failed(`answered HTTP ${res.statusCode}`);
    }
    const read = await readCapped(res.body, options.maxResponseBytes);
    if (read === undefined) return failed(`answered more than ${options.maxResponseBytes} bytes`);
    text = read;
  } catch (err) {
    if (signal.aborted) return failed(`no answer within ${options.timeoutMs} ms`);
    return failed(`unreachable: ${(err as Error).message}`);
  }
  return verdictOf(text, call.texts.length);
}

/** The body as text, or undefined past `max` bytes (leaving the loop ends the body: the rest is never read). */
async function readCapped(body: AsyncIterable<Buffer>, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** The verdict an answer's text gives, or the failure that says what is wrong with it. */
export function verdictOf(text: string, texts: number): WebhookVerdict | WebhookFailure {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return failed('answered something that is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return failed('answered JSON that is not an object');
  const answer = value as Record<string, unknown>;
  const entity = answer.entity ?? 'webhook';
  if (typeof entity !== 'string' || !ENTITY.test(entity)) return failed('answered an entity that is not [a-z0-9_-], 1 to 64');
  switch (answer.action) {
    case 'allow':
      return { action: 'allow' };
    case 'block':
    case 'monitor':
      return { action: answer.action, entity };
    case 'mask': {
      const replacements = answer.replacements;
      if (!Array.isArray(replacements) || replacements.length !== texts) return failed(`answered mask without replacements for each of the ${texts} texts`);
      if (!replacements.every((r) => r === null || typeof r === 'string')) return failed('answered a replacement that is neither a string nor null');
      return { action: 'mask', entity, replacements };
    }
    default:
      return failed('answered no action among allow, block, mask, monitor');
  }
}

function failed(reason: string): WebhookFailure {
  return { action: 'failed', reason };
}
