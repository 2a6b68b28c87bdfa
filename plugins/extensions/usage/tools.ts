/**
 * MCP tools/call in the usage series (docs/mcp.md): a call carries no tokens, so it is counted
 * in buckets of its own, one series per (key, MCP server, tool) per UTC hour, with how it
 * ended (`outcomes`) and what it cost. Read with `GET /v1/usage?group_by=tool` (or
 * `mcp_server`, with `key` and `tag:<name>` beside them):
 * `[{bucket_start, <group fields>, requests, errors, cost_usd, outcomes: {ok, tool_error…}}]`,
 * where `errors` counts every call that did not end `ok`.
 */
import type { Context } from 'koa';
import { accountOf, MCP_CALL, type McpCall, type RequestContext, type SeriesShape, type Store } from 'gw/plugin';

/** Store key of the tool-call hour buckets (relative to the usage namespace). */
export const TOOLS_KEY = 'mcp';
/** Counter field prefix of the calls by outcome. */
const OUTCOME = 'o:';
/** rc.state slot: the call was counted (onError may follow an onResponse whose later tap threw). */
const COUNTED = Symbol('usage.toolCounted');

const usd = (v: number): number => Math.round(v * 1e9) / 1e9;

export const TOOL_SHAPE: SeriesShape = {
  dims: ['key', 'mcp_server', 'tool'],
  fields: (s) => {
    const outcomes: Record<string, number> = {};
    for (const f in s) if (f.startsWith(OUTCOME)) outcomes[f.slice(OUTCOME.length)] = s[f]!;
    return { requests: s.requests ?? 0, errors: s.errors ?? 0, cost_usd: usd(s.usd ?? 0), outcomes: outcomes as unknown as number };
  },
};

/** True when `group_by` names an MCP dimension: the query reads the tool-call series. */
export function wantsTools(ctx: Context): boolean {
  const g = ctx.query.group_by;
  return typeof g === 'string' && /(^|,)\s*(tool|mcp_server)\s*(,|$)/.test(g);
}

/**
 * Counts one ended tools/call (from onResponse or onError, once) in its hour bucket.
 * `buckets`: the series' bucket size and retention; undefined when series are off.
 */
export async function recordToolCall(
  store: Store,
  buckets: { bucketMs: number; retentionMs: number } | undefined,
  rc: RequestContext,
  now: number,
): Promise<void> {
  const call = rc.state.get(MCP_CALL) as McpCall | undefined;
  if (!buckets || call?.outcome === undefined || rc.state.has(COUNTED)) return;
  rc.state.set(COUNTED, true);
  const deltas: Record<string, number> = { requests: 1 };
  deltas[OUTCOME + call.outcome] = 1;
  if (call.outcome !== 'ok') deltas.errors = 1;
  if (rc.cost) deltas.usd = rc.cost.total;
  await store.bucketIncr(TOOLS_KEY, now, JSON.stringify([accountOf(rc), call.server, call.tool]), deltas, buckets);
}
