/**
 * `npx node --conditions=gw-source bench/affinity-micro.ts`: prompt-cache affinity's routing
 * cost per request, in process, without HTTP (a few microseconds are lost in a socket round
 * trip's noise). For each recorded agent request (Codex's Responses body with its
 * prompt_cache_key, Gemini CLI's generateContent (its 23 KB system instruction and first turn), a Claude
 * Code-shaped Messages body with metadata.user_id, and the same without it: the prefix hash
 * of its 24 KB system prompt) it times what the kernel does per request:
 *
 *   off       group.order() (round_robin over two members)
 *   kept      the format's reader + affinityKey + AffinityTable.pick (a local hit) +
 *             orderFrom + record: a known conversation
 *   new       the same for a conversation never seen (a local miss, an insert; the table
 *             full at 100,000 entries, so each insert evicts the least recent)
 *
 * Median of AFF_ROUNDS (7) rounds of AFF_N (100,000) requests, the variants interleaved per
 * round; process CPU time (this thread and V8's helpers; nothing here waits on I/O).
 */
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import type { Provider } from '../lib/provider.ts';
import { AffinityTable, affinityKey } from '../lib/resilience/affinity.ts';
import { Member } from '../lib/resilience/member.ts';
import { Group } from '../lib/resilience/strategy.ts';
import { messagesAffinity } from '../protocols/anthropic-messages/affinity.ts';
import { geminiAffinity } from '../protocols/gemini/affinity.ts';
import { responsesAffinity } from '../protocols/openai-responses/affinity.ts';
import { envNumber } from './options.ts';

const N = Math.round(envNumber('AFF_N', 100_000));
const ROUNDS = Math.round(envNumber('AFF_ROUNDS', 7));
const settings = { affinity_ttl_seconds: 3600, affinity_max_entries: 100_000 };

/** A recorded request's body (a capture keeps it under `body`). */
const fixture = (p: string): Record<string, unknown> => {
  const j = JSON.parse(readFileSync(new URL(`../test/fixtures/${p}`, import.meta.url), 'utf8'));
  return j.body ?? j;
};
const codex = fixture('responses/codex-0.169-request.json');
const geminiCli = fixture('gemini/gemini-cli/read-file-turn.1.request.json');
const system = 'You are Claude Code, an interactive CLI tool that helps users with software engineering tasks. '.repeat(250);
const claude = {
  model: 'claude-sonnet-4-5',
  max_tokens: 32000,
  metadata: { user_id: 'user_0123abcd_account_1f2e_session_9a8b7c6d-0000-4000-8000-000000000001' },
  system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>CLAUDE.md contents…</system-reminder>' },
        { type: 'text', text: 'Fix the failing test in parser.ts' },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Looking at it.' }] },
    { role: 'user', content: 'go on' },
  ],
};
const { metadata: _m, ...claudeNoId } = claude;

const member = (name: string) =>
  new Member({ name, kind: 'x', models: ['m'] } as unknown as Provider, { maxRetries: 0, weight: 1 }, { failures: 5, cooldownMs: 30_000 });

interface Workload {
  what: string;
  body: Record<string, unknown>;
  read(body: Record<string, unknown>): string | undefined;
}
const workloads: Workload[] = [
  { what: 'Codex, Responses, prompt_cache_key', body: codex, read: responsesAffinity },
  { what: 'Claude Code, Messages, metadata.user_id', body: claude, read: messagesAffinity },
  { what: 'Claude Code, Messages, prefix (24 KB system)', body: claudeNoId, read: messagesAffinity },
  { what: 'Gemini CLI, generateContent, prefix', body: geminiCli, read: geminiAffinity },
];

/** CPU µs per request of `fn` over N calls (CPU, not wall time: on a shared machine the wait for a core is not the code's). */
async function time(fn: (i: number) => unknown | Promise<unknown>): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await fn(i);
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / N;
}

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const log = pino({ level: 'silent' });
const group = new Group([member('a'), member('b')], 'round_robin', true);
const f = (x: number) => x.toFixed(2).padStart(8);
console.log(`affinity routing cost, µs per request (median of ${ROUNDS} rounds of ${N}); off = group.order() alone`);
console.log(`${'request'.padEnd(46)}${'off'.padStart(8)}${'kept'.padStart(8)}${'new'.padStart(8)}${'+kept'.padStart(8)}${'+new'.padStart(8)}`);
for (const w of workloads) {
  const table = new AffinityTable(undefined, log);
  // fill the table: every "new" insert then evicts, the steady state of a busy instance
  for (let i = 0; i < settings.affinity_max_entries; i++) table.record(`fill${i}`, 'a', settings);
  let fresh = 0;
  const route = async (key: string) => {
    const pinned = await table.pick(key, group, settings);
    const order = pinned ? group.orderFrom(pinned) : group.order();
    table.record(key, order[0]!.provider.name, settings);
    return order;
  };
  const off = () => group.order();
  const kept = () => route(affinityKey('default', 'm', w.read(w.body)!));
  const fresh1 = () => route(affinityKey('default', 'm', `${w.read(w.body)!}${fresh++}`));
  const runs = { off: [] as number[], kept: [] as number[], fresh: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    runs.off.push(await time(off));
    runs.kept.push(await time(kept));
    runs.fresh.push(await time(fresh1));
  }
  const [o, k, n] = [median(runs.off), median(runs.kept), median(runs.fresh)];
  console.log(`${w.what.padEnd(46)}${f(o)}${f(k)}${f(n)}${f(k - o)}${f(n - o)}`);
}
