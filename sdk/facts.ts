/** Facts one plugin leaves in `rc.state` or tells through onNotice for others: `Symbol.for` slots and their shapes. */
import type { BudgetPeriod } from '../lib/key-settings.ts';

/** rc.state slot where the budget extension leaves a BudgetSettled once it charged the request. */
export const BUDGET_SETTLED: unique symbol = Symbol.for('gw.budget.settled') as never;

/** A key's spend right after one request was charged to it (the store's atomic result, exact across instances). */
export interface BudgetSettled {
  readonly key: string;
  /** Spent in the current period including this request, USD. */
  readonly spentUsd: number;
  /** What this request cost, USD (spent before it = spentUsd − costUsd). */
  readonly costUsd: number;
  /** The key's budget for the period, USD. */
  readonly budgetUsd: number;
  /** The budget period; undefined = lifetime. */
  readonly period: BudgetPeriod | undefined;
  /** Start and end of the period, epoch ms; undefined for lifetime. */
  readonly periodStart: number | undefined;
  readonly resetsAt: number | undefined;
}

/** onNotice fact: a key's spend (a BudgetSettled, `costUsd` 0) after its budget settings changed, so alerts need no request. */
export const BUDGET_STATUS: unique symbol = Symbol.for('gw.budget.status') as never;

/** rc.state slot where the MCP gateway describes a tools/call: a request whose `operation` is `tool` (docs/mcp.md). */
export const MCP_CALL: unique symbol = Symbol.for('gw.mcp.call') as never;

/**
 * How a tools/call ended: `ok` (the tool answered), `tool_error` (it answered `isError: true`),
 * `upstream_error` (the server failed, timed out or is down), `denied` (the key may not use the
 * tool), `limited` (a rate limit, a budget or the server's max_concurrency refused it).
 */
export type McpOutcome = 'ok' | 'tool_error' | 'upstream_error' | 'denied' | 'limited';

/**
 * One MCP tools/call as the hook pipeline sees it: `rc.model` is its full name, `rc.provider`
 * its server once the call went upstream, `rc.usage` stays undefined (no tokens) and `rc.cost`
 * is `price` once the tool answered.
 */
export interface McpCall {
  /** The server's config name (`[mcp_servers.<name>]`). */
  readonly server: string;
  /** The tool's own name on that server. */
  readonly tool: string;
  /** Its full name as the client called it (`<server>__<tool>`, or a hashed form; the own name on `/mcp/<server>`). */
  readonly name: string;
  /** The MCP revision the client speaks (`2025-11-25`, `2026-07-28`…), when known. */
  readonly protocolVersion: string | undefined;
  /** The JSON-RPC id of the client's tools/call. */
  readonly requestId: string | number | undefined;
  /** USD one call costs (`tool_costs`, else `cost_per_call`): a budget reserves it before the call. */
  readonly price: number;
  /** The client's MCP session (2025-11-25), when it has one. */
  readonly sessionId: string | undefined;
  /** Set once the call ended. */
  outcome: McpOutcome | undefined;
}

/**
 * rc.state slot where the guardrails extension leaves what its checks did to a request (a
 * GuardrailOutcome per check, phase, action and entity), for the request log and traces to
 * record: names and counts, never the matched text (docs/guardrails.md).
 */
export const GUARDRAILS: unique symbol = Symbol.for('gw.guardrails') as never;

/** One check's hits of one entity type in one phase: `{check, phase, action, entity, count}`. */
export interface GuardrailOutcome {
  /** The check's name (`[extensions.guardrails.checks.<name>]`). */
  readonly check: string;
  readonly phase: 'request' | 'response';
  /** What was done: `block`, `mask` or `monitor` (recorded only). */
  readonly action: 'block' | 'mask' | 'monitor';
  /** What was found: `email`, `aws-access-key`, `credit_card`… (a type, never a value). */
  readonly entity: string;
  /** Matches of that entity. */
  readonly count: number;
}
