/**
 * The budget rule, checked as each request is charged (BUDGET_SETTLED) or a key's budget changes
 * (BUDGET_STATUS): the highest threshold reached alerts once per key, period and budget amount;
 * staying above one costs a map lookup per request (claim.ts).
 */
import { BUDGET_SETTLED, type BudgetSettled, type FinishedRequest, rfc3339 } from 'gw/plugin';
import type { AlertEngine } from './engine.ts';

/** A lifetime budget's crossing stays claimed this long (it never resets). */
const LIFETIME_CLAIM_MS = 400 * 86_400_000;
/** The shortest claim: a period about to end still suppresses repeats for a minute. */
const MIN_CLAIM_MS = 60_000;

const usd = (n: number) => Math.round(n * 1e6) / 1e6;

/** Checks one finished request against the thresholds (percent, highest first). */
export function checkBudget(engine: AlertEngine, thresholdsDesc: readonly number[], f: FinishedRequest): void {
  const s = f.state?.get(BUDGET_SETTLED) as BudgetSettled | undefined;
  if (s) checkSpend(engine, thresholdsDesc, s);
}

/** Checks a key's spend against the thresholds (percent, highest first): after a charge, or after a change of its settings. */
export function checkSpend(engine: AlertEngine, thresholdsDesc: readonly number[], s: BudgetSettled): void {
  if (s.budgetUsd <= 0) return;
  const pct = (s.spentUsd / s.budgetUsd) * 100;
  for (const t of thresholdsDesc) {
    if (pct < t) continue;
    const dedupe = `budget:${s.key}:${s.periodStart ?? 'lifetime'}:${s.budgetUsd}:${t}`;
    if (!engine.claims.open(dedupe)) return;
    const ttl = s.resetsAt === undefined ? LIFETIME_CLAIM_MS : Math.max(MIN_CLAIM_MS, s.resetsAt - engine.gateway.now());
    const period = s.period ?? 'lifetime';
    engine.fireSoon(dedupe, ttl, {
      rule: 'budget',
      severity: t >= 100 ? 'critical' : 'warning',
      title: `key '${s.key}' has spent ${Math.floor(pct)}% of its $${s.budgetUsd} ${period === 'lifetime' ? 'lifetime' : period} budget (threshold ${t}%)`,
      subject: { key: s.key },
      details: {
        threshold_percent: t,
        spent_usd: usd(s.spentUsd),
        budget_usd: s.budgetUsd,
        period,
        period_start: s.periodStart === undefined ? null : rfc3339(s.periodStart),
        resets_at: s.resetsAt === undefined ? null : rfc3339(s.resetsAt),
      },
    });
    return;
  }
}
