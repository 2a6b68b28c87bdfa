/**
 * `npx node --conditions=gw-source bench/hot-micro.ts [<other checkout>]`: pieces of the request
 * path, in process, CPU µs per request (process CPU, every thread), in ABBA rounds
 * (`HOT_ROUNDS`, 6; `HOT_CALLS` per round, 50,000), median round and every round. Across
 * processes these differences are smaller than what two identical gws differ by on this VM;
 * here they are resolved.
 *
 * - validation of a request body: zod (lib/schemas.ts `validate`) against the check compiled
 *   once from it (lib/validate-compiled.ts), on the bench's chat body and recorded agent
 *   requests (Claude Code's Messages, Codex's Responses, Gemini CLI's generateContent);
 * - the answer's Content-Type set through Koa's `ctx.type` (mime-types on every answer) against
 *   the header resolved once; the body's media-type checked twice (gw's own check, then
 *   koa-body's default types) against once;
 * - with another checkout: `GatewayMetrics.request` of one finished request, that tree's
 *   against this one's (the same request, usage and cost).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { join, resolve } from 'node:path';
import Koa from 'koa';
import type { z } from 'zod';
import { validate } from '../lib/schemas.ts';
import { validateRequest } from '../lib/validate-compiled.ts';
import { messagesRequestSchema } from '../protocols/anthropic-messages/schema.ts';
import { generateContentRequestSchema } from '../protocols/gemini/schemas.ts';
import { chatRequestSchema } from '../protocols/openai-chat/schema.ts';
import { responsesRequestSchema } from '../protocols/openai-responses/schema.ts';
import { fixtureJson } from '../test/helpers/upstream.ts';
import { envNumber } from './options.ts';
import { chat } from './scenarios.ts';

const ROUNDS = Math.max(1, Math.round(envNumber('HOT_ROUNDS', 6)));
const CALLS = Math.max(1, Math.round(envNumber('HOT_CALLS', 50_000)));

/** Keeps results alive so no call is optimized away. */
let sink = 0;

/** CPU µs per call of `fn` over `calls` calls. */
function cpuPerCall(fn: () => unknown, calls: number): number {
  const t0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) if (fn() !== undefined) sink++;
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / calls;
}

/** `rounds` ABBA rounds of `a` (old) and `b` (new): each side's median µs per call and every round's b/a. */
function abba(a: () => unknown, b: () => unknown, calls: number): { a: number; b: number; ratios: number[] } {
  cpuPerCall(a, calls);
  cpuPerCall(b, calls);
  const as: number[] = [];
  const bs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const x1 = cpuPerCall(a, calls);
    const y1 = cpuPerCall(b, calls);
    const y2 = cpuPerCall(b, calls);
    const x2 = cpuPerCall(a, calls);
    as.push((x1 + x2) / 2);
    bs.push((y1 + y2) / 2);
  }
  const median = (xs: number[]) => xs.toSorted((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return { a: median(as), b: median(bs), ratios: as.map((x, i) => bs[i]! / x) };
}

const lines: string[] = [`hot-micro: CPU µs per request, ${ROUNDS} ABBA rounds of ${CALLS} calls (median; new/old per round)`];
const row = (name: string, r: { a: number; b: number; ratios: number[] }, old: string, now: string) =>
  `${name.padEnd(42)}${old} ${r.a.toFixed(2).padStart(7)}  ${now} ${r.b.toFixed(2).padStart(7)}  −${(r.a - r.b).toFixed(2)} µs  (${r.ratios.map((x) => x.toFixed(2)).join(' ')})`;

const bodies: Array<[string, z.ZodType, unknown]> = [
  ['chat (the bench body)', chatRequestSchema, chat],
  ['Messages (Claude Code turn)', messagesRequestSchema, fixtureJson('anthropic/claude-code/read-file-turn.1.request.json')],
  ['Responses (Codex turn)', responsesRequestSchema, fixtureJson('responses/codex/exec-turn.1.request.json')],
  ['Gemini (Gemini CLI turn)', generateContentRequestSchema, fixtureJson('gemini/gemini-cli/read-file-turn.1.request.json')],
];
for (const [name, schema, body] of bodies) {
  if (validateRequest(schema, body) !== undefined) throw new Error(`${name}: the body is not valid`);
  const calls = Math.max(1000, Math.round(CALLS / Math.max(1, JSON.stringify(body).length / 2000)));
  lines.push(
    row(
      `validate ${name}`,
      abba(
        () => validate(schema, body),
        () => validateRequest(schema, body),
        calls,
      ),
      'zod',
      'compiled',
    ),
  );
}

// the answer's Content-Type (core/pipeline/respond.ts sendText) and the body's media-type
// check (lib/http/body.ts): on a Koa context of a request as the bench sends it
{
  const app = new Koa();
  const req = new IncomingMessage(new Socket());
  req.headers = { 'content-type': 'application/json', 'content-length': '100' };
  req.method = 'POST';
  const ctx = app.createContext(req, new ServerResponse(req));
  lines.push(
    row(
      "answer's Content-Type",
      abba(
        () => {
          ctx.type = 'application/json';
        },
        () => {
          ctx.set('content-type', 'application/json; charset=utf-8');
        },
        CALLS * 4,
      ),
      'ctx.type',
      'resolved',
    ),
    row(
      "body's media-type checks",
      abba(
        () => ctx.is('application/json', '+json') && ctx.is(['application/json', 'application/json-patch+json', 'application/vnd.api+json']),
        () => ctx.is(['application/json', '+json']),
        CALLS * 4,
      ),
      'two',
      'one',
    ),
  );
}

const other = process.argv[2];
if (other) {
  const root = resolve(other);
  type Metrics = {
    request(route: string, rc: unknown, status: number, failure: unknown, totalMs: number): void;
  };
  type MetricsClass = new (source: { providers(): Iterable<never> }, opts: { defaultMetrics?: boolean }) => Metrics;
  const load = async (dir: string) => ((await import(join(dir, 'server/metrics/metrics.ts'))) as { GatewayMetrics: MetricsClass }).GatewayMetrics;
  const Old = await load(root);
  const New = await load(resolve(import.meta.dirname, '..'));
  const source = { providers: () => [] };
  const [old, now] = [new Old(source, { defaultMetrics: false }), new New(source, { defaultMetrics: false })];
  // a finished, answered request as the boundary records it
  const rc = {
    route: 'chat',
    servedModel: 'bench-model',
    provider: 'upstream',
    operation: 'generate',
    cacheHit: false,
    partial: false,
    status: 200,
    upstreamMs: 0.8,
    key: { name: 'bench' },
    usage: { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32 },
    cost: null,
  };
  lines.push(
    row(
      'metrics record (GatewayMetrics.request)',
      abba(
        () => old.request('chat', rc, 200, undefined, 1.2),
        () => now.request('chat', rc, 200, undefined, 1.2),
        CALLS * 4,
      ),
      'old',
      'new',
    ),
  );
}
process.stdout.write(`${lines.join('\n')}\n${sink > 0 ? '' : ' '}`);
