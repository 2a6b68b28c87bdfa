/**
 * `npx node --conditions=gw-source bench/guardrails.ts`: what guardrails add, in process,
 * without HTTP (issue 41's targets: at most 2 ms for a 100 KB agent prompt with `secrets` +
 * `pii`, at most 20 µs per streamed event with the window).
 *
 * - Per request: a Messages request (2 KB; and Claude Code's recorded 93 KB turn grown to
 *   100 KB of text by a tool result carrying a `.env` file), checked by `secrets` + `pii`
 *   (every entity) with `mask`: the content view built, every text part checked once, the
 *   masks set and committed, the edited body serialized again; then as `monitor` (checked,
 *   nothing rewritten or serialized). "Off" is the same loop without the checks (a fresh copy
 *   of the body each time, which both sides pay).
 * - Per event: a 600-event chat stream of prose with a secret and an email split across
 *   events, as the kernel's stepped loop handles it (lib/content/steps.ts): each event a
 *   HeldEvent over its text, parsed and read by the window, released, its edits committed and
 *   an edited event serialized again. "Off" reads each event's text and nothing more: the
 *   loops without a step neither parse nor view an event.
 *
 * Each side runs warmed, in ABBA cycles (off, on, on, off); a cycle's figure is CPU time
 * (this process, every thread) per item, on − off. Every cycle is printed, then the median.
 */
import { readFileSync } from 'node:fs';
import { Edits } from '../lib/content/parts.ts';
import { HeldEvent } from '../lib/content/steps.ts';
import { requestContent } from '../lib/content/view.ts';
import { compileChecks } from '../plugins/extensions/guardrails/checks.ts';
import { guardrailsSchema } from '../plugins/extensions/guardrails/config.ts';
import { checkParts } from '../plugins/extensions/guardrails/engine.ts';
import { Window } from '../plugins/extensions/guardrails/window.ts';
import { messagesContent } from '../protocols/anthropic-messages/content.ts';
import { chatContent } from '../protocols/openai-chat/content.ts';
import { AWS_SECRET, SECRETS } from '../test/helpers/guardrails-secrets.ts';

const CYCLES = Number(process.env.BENCH_CYCLES ?? 5);
const [AWS, , GITHUB] = SECRETS.map((s) => s.value) as [string, string, string];
/** `secrets` + `pii` (every entity) with `action`. */
function checksWith(action: 'mask' | 'monitor') {
  return compileChecks(
    guardrailsSchema.parse({
      checks: {
        secrets: { type: 'secrets', action },
        pii: { type: 'pii', action, entities: ['email', 'phone', 'credit_card', 'iban', 'ip', 'us_ssn'] },
      },
    }),
  );
}
const checks = checksWith('mask');
const monitor = checksWith('monitor');

const ENV_FILE = `# .env\nDATABASE_URL=postgres://app:Zx8vq2Lm7@db.internal:5432/app\nAWS_ACCESS_KEY_ID=${AWS}\naws_secret_access_key = ${AWS_SECRET}\nGITHUB_TOKEN=${GITHUB}\nSUPPORT_EMAIL=help.desk@corp-mail.net\nONCALL_PHONE=+1 415 555 2671\n`;

/** A small agent turn: instructions, a question, a file read by a tool (2 KB of text). */
function smallPrompt(): Record<string, unknown> {
  const code = 'export function total(items: Item[]): number {\n  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);\n}\n'.repeat(12);
  return {
    model: 'claude-sonnet-4-5-20250929',
    max_tokens: 4096,
    system: 'You are a coding agent. Read files with the tools you have and answer briefly.',
    messages: [
      { role: 'user', content: 'Why does the checkout total drift? Look at src/total.ts and the env file.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'Read', input: { file_path: 'src/total.ts' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: code + ENV_FILE }] },
    ],
  };
}

/** Claude Code's recorded turn (93 KB of JSON), with a tool result carrying the `.env` file and code to 100 KB of text. */
function largePrompt(): Record<string, unknown> {
  const recorded = JSON.parse(readFileSync(new URL('../test/fixtures/anthropic/claude-code/read-file-turn.0.request.json', import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
  const body = (typeof recorded.body === 'object' && recorded.body !== null ? recorded.body : recorded) as Record<string, unknown>;
  let characters = 0;
  for (const part of requestContent(messagesContent, body, new Edits(false)).texts()) characters += part.text.length;
  const filler = 'const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0); // see docs/total.md\n';
  const extra = ENV_FILE + filler.repeat(Math.max(0, Math.ceil((100_000 - characters - ENV_FILE.length) / filler.length)));
  const messages = body.messages as Array<Record<string, unknown>>;
  messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_bench', name: 'Read', input: { file_path: '.env' } }] });
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_bench', content: extra }] });
  return body;
}

function textLength(body: Record<string, unknown>): number {
  let n = 0;
  for (const part of requestContent(messagesContent, body, new Edits(false)).texts()) n += part.text.length;
  return n;
}

/** CPU time of this process so far, µs. */
function cpuUs(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** One side of a request measurement: µs of CPU per request over `n` requests. */
function requests(template: Record<string, unknown>, on: boolean, n: number, which = checks): number {
  const text = JSON.stringify(template);
  const start = cpuUs();
  let sink = 0;
  for (let i = 0; i < n; i++) {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (on) {
      const at = new Edits(true);
      checkParts(requestContent(messagesContent, body, at).texts(), which, 'request');
      if (at.commit()) sink += JSON.stringify(body).length;
    }
    sink += Object.keys(body).length;
  }
  if (sink < 0) throw new Error('unreachable');
  return (cpuUs() - start) / n;
}

/** A chat stream: prose cut every ~4 characters, a GitHub token and an email cut across events. */
function streamEvents(count: number): string[] {
  const prose = 'The total drifts because the rounding happens per line instead of once at the end of the order. ';
  let text = '';
  while (text.length < count * 4) text += prose;
  const at = Math.floor(text.length / 2);
  text = `${text.slice(0, at)} token ${GITHUB} and mail ops.lead@corp-mail.net ${text.slice(at)}`;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const piece = text.slice(i * 4, i * 4 + 4 + (i === count - 1 ? text.length : 0));
    out.push(
      JSON.stringify({
        id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
        object: 'chat.completion.chunk',
        created: 1_727_893_452,
        model: 'gpt-5.4-nano',
        choices: [{ index: 0, delta: { content: piece }, finish_reason: i === count - 1 ? 'stop' : null }],
      }),
    );
  }
  return out;
}

/** One side of a stream measurement: µs of CPU per event over `streams` streams. */
function events(data: readonly string[], on: boolean, streams: number): number {
  const start = cpuUs();
  let sink = 0;
  for (let s = 0; s < streams; s++) {
    if (!on) {
      for (const line of data) sink += line.length;
      continue;
    }
    const window = new Window<HeldEvent>(checks);
    const leave = (out: readonly HeldEvent[]) => {
      for (const held of out) sink += held.commit() ? JSON.stringify(held.value).length : held.data!.length;
    };
    for (const line of data) leave(window.push(new HeldEvent(chatContent, line, undefined, undefined)));
    leave(window.end());
  }
  if (sink < 0) throw new Error('unreachable');
  return (cpuUs() - start) / (streams * data.length);
}

/** ABBA cycles of `measure(false)` / `measure(true)` after a warm-up of each; each cycle's on − off. */
function abba(measure: (on: boolean) => number): number[] {
  measure(false);
  measure(true);
  measure(false);
  measure(true);
  const deltas: number[] = [];
  for (let c = 0; c < CYCLES; c++) {
    const off1 = measure(false);
    const on1 = measure(true);
    const on2 = measure(true);
    const off2 = measure(false);
    deltas.push((on1 + on2 - off1 - off2) / 2);
  }
  return deltas;
}

const median = (values: readonly number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;

function report(label: string, unit: string, deltas: readonly number[], target: number): void {
  const cycles = deltas.map((d) => d.toFixed(unit === 'ms' ? 3 : 2)).join(', ');
  const mid = median(deltas);
  console.log(
    `${label}: +${mid.toFixed(unit === 'ms' ? 3 : 2)} ${unit} (median of ${deltas.length} ABBA cycles: ${cycles}); target ≤ ${target} ${unit}: ${mid <= target ? 'met' : 'MISS'}`,
  );
}

const small = smallPrompt();
const large = largePrompt();
console.log(`prompts: ${textLength(small)} and ${textLength(large)} characters of text; checks: secrets + pii (${checks[1]!.type}: every entity), mask`);
report(
  'request 2 KB',
  'ms',
  abba((on) => requests(small, on, 2000) / 1000),
  2,
);
report(
  'request 100 KB',
  'ms',
  abba((on) => requests(large, on, 40) / 1000),
  2,
);
// the same checks as monitor: nothing is rewritten, so nothing is serialized again
report(
  'request 100 KB, monitor',
  'ms',
  abba((on) => requests(large, on, 40, monitor) / 1000),
  2,
);
const stream = streamEvents(600);
report(
  'stream event (window)',
  'µs',
  abba((on) => events(stream, on, 20)),
  20,
);
