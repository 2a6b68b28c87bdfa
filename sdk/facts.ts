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
