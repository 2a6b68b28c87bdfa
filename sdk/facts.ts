/**
 * Facts one plugin leaves in a request's state (`rc.state`, FinishedRequest.state) or tells
 * outside any request (`hooks.onNotice`) for the others to read: plugins never import each
 * other, so the slot and its shape are the contract. Each slot is a `Symbol.for` name, the
 * same symbol in every copy of the SDK.
 */
import type { BudgetPeriod } from '../lib/key-settings.ts';

/** rc.state slot where the budget extension leaves a BudgetSettled once it charged the request. */
export const BUDGET_SETTLED: unique symbol = Symbol.for('gw.budget.settled') as never;

/** A key's spend right after one request was charged to it (the store's atomic result, exact across instances). */
export interface BudgetSettled {
  /** The key name it was charged to. */
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

/**
 * onNotice fact (value: a BudgetSettled with `costUsd` 0): a key's spend against its budget
 * right after a change of its settings (budget, period: an admin change, a reload, a
 * restart), read from the store; the budget extension tells it so a change that puts a key
 * past an alert threshold alerts without waiting for its next request.
 */
export const BUDGET_STATUS: unique symbol = Symbol.for('gw.budget.status') as never;
