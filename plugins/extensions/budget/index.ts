/**
 * The `budget` extension: USD spend per key at the request's cost (`rc.cost`) against its
 * budget and period (docs/extensions.md "Budget periods", "Strict budgets"). onRequest: 403 for
 * an unpriced model, else a hold of the request's most cost, refused (429) in one atomic store
 * step with the check, so parallel requests overspend by at most what was in flight. onResponse
 * settles (an early-ended stream in onError too) before the last byte; other failures cost
 * nothing. onKeysChange tells BUDGET_STATUS (alerts need no request). Holds are never durable.
 * An MCP tools/call (operation `tool`, docs/mcp.md) holds its server's per-call price, always
 * strictly, and is charged it when the tool answered.
 */
import { z } from 'zod';
import {
  accountOf,
  badRequest,
  BUCKETS_KEY,
  BUDGET_SETTLED,
  BUDGET_STATUS,
  type BudgetSettled,
  chargeable,
  defineError,
  defineExtension,
  errors,
  type KeyInfo,
  type KeysChange,
  MCP_CALL,
  type McpCall,
  parseSeriesQuery,
  readSeries,
  type RequestContext,
  type SeriesShape,
  usdAmount,
  wantsSeries,
} from 'gw/plugin';
import { own, quoted } from 'gw/plugin/format';
import { estimatePromptTokens, reserveOutputTokens } from './estimate.ts';
import { foldLegacy } from './legacy.ts';
import { DAY_MS, HOUR_MS, PeriodClock, type PeriodWindow, rfc3339 } from './period.ts';
import { budgetHistory, firstKept, listBudgets, spendKey, spentIn, staleFields, TOTAL, usd } from './spend.ts';

export type { BudgetEntry, HistoryEntry } from './spend.ts';

const PLUGIN_NAME = 'budget';
/** rc.state slot: the request's hold. */
const HOLD = Symbol('budget.hold');

const schema = z.strictObject({
  /** USD every key may spend, in its budget_period (lifetime unless the key gives one); at most MAX_USD. */
  default_budget: usdAmount,
  /** Per-key overrides: `[extensions.budget.keys.<name>] budget = 25.0`. */
  keys: z.record(z.string(), z.strictObject({ budget: usdAmount })).default({}),
  /** Refuse a request whose own reservation does not fit in what is left (off: one request may overshoot). */
  strict: z.boolean().default(false),
  /** Output tokens reserved for a request that gives no max_tokens. */
  output_reserve_tokens: z.number().int().nonnegative().default(4096),
  /** Per-model reserve: `[extensions.budget.models."<model>"] output_reserve_tokens = 16384`. */
  models: z.record(z.string(), z.strictObject({ output_reserve_tokens: z.number().int().nonnegative() })).default({}),
  /** A hold lapses after this long even if its request never ended (a bug guard; holds die with the process anyway). */
  reservation_ttl_seconds: z.number().positive().default(3600),
  /** Days the hourly spend buckets are kept (the series, and past periods in `?history=true`); 0 keeps none (the current and previous periods' totals are kept anyway). */
  retention_days: z.number().nonnegative().default(90),
  /** A model with no price anywhere: `refuse` it (403 model_not_priced), or `allow` it at no cost. */
  unpriced: z.enum(['refuse', 'allow']).default('refuse'),
});
type Config = z.output<typeof schema>;

interface Hold {
  id: string;
  /** The key name it is accounted to. */
  account: string;
  /** Its spend record (spend.ts). */
  record: string;
  /** The fields of the day, week and month it was admitted in: what it costs is charged there. */
  periods: readonly string[];
  /** What the hold reserved, USD (0 for an unpriced model let through). */
  estimate: number;
  /** The budget it was admitted against, USD, and its period (undefined: lifetime). */
  limit: number;
  window: PeriodWindow | undefined;
}

const SHAPE: SeriesShape = {
  dims: ['key', 'model'],
  fields: (s) => ({ spent_usd: usd(s.usd ?? 0), requests: s.requests ?? 0 }),
};

/** A model without a price anywhere: the budget cannot price it, so it is refused (fail closed) unless `unpriced = "allow"`. */
export const MODEL_NOT_PRICED = defineError<string>(
  'model_not_priced',
  403,
  (model) =>
    `model '${model}' has no price: not in [pricing."${model}"], its providers' pricing or the bundled price table, and the budget extension refuses unpriced models (set unpriced = "allow" in [extensions.budget] to serve them at no cost)`,
  { param: 'model', refusal: 'model_not_priced' },
);
/** Spent plus in-flight holds reach the budget, or (strict) this request's `need` does not fit in what is left. */
export const BUDGET_EXCEEDED = defineError<{ key: string; spent: number; limit: number; held: number; need?: number; period?: string; resets?: number }>(
  'budget_exceeded',
  429,
  (p) =>
    `${p.need === undefined ? 'budget exhausted' : `budget too small for this request (it reserves $${usd(p.need)}, $${usd(Math.max(0, p.limit - p.spent - p.held))} is left)`} for key '${p.key}': spent $${usd(p.spent)} of $${p.limit}${p.period ? ` this ${PERIOD_NOUN[p.period]}` : ''}${p.held ? ` ($${usd(p.held)} more held by requests in flight)` : ''}${p.resets === undefined ? '' : `; resets at ${rfc3339(p.resets)}`}`,
  // a 429 that a client's backoff of seconds cannot outwait: the period ends, or an admin raises the budget
  { refusal: 'budget', retry: false },
);

const PERIOD_NOUN: Record<string, string> = { daily: 'day', weekly: 'week', monthly: 'month' };

export default defineExtension({
  name: PLUGIN_NAME,
  configSchema: schema,
  keySettings: ['budget', 'budget_period'],
  async setup({ config, store, hooks, routes, gateway, log }) {
    /** The key's own budget, else its [extensions.budget.keys.<name>] one, else the default. */
    const limitOf = (name: string, key: KeyInfo | undefined) => key?.budget ?? own(config.keys, name)?.budget ?? config.default_budget;
    const periods = new PeriodClock();
    const ttlMs = config.reservation_ttl_seconds * 1000;
    const retentionMs = config.retention_days * DAY_MS;
    const buckets = retentionMs > 0 ? { bucketMs: HOUR_MS, retentionMs } : undefined;
    let seq = 0;

    const folded = await foldLegacy(store, gateway.now());
    if (folded) log.info({ counters: folded }, 'budget: spend of the earlier per-period layout folded into one record per key');

    hooks.onRequest.tapPromise(PLUGIN_NAME, async function reserve(rc: RequestContext) {
      // counting tokens costs nothing upstream
      if (rc.operation === 'count') return undefined;
      const tool = rc.operation === 'tool' ? (rc.state.get(MCP_CALL) as McpCall | undefined) : undefined;
      // a free tool costs nothing to reserve: an exhausted budget stops what costs money
      if (tool?.price === 0) return undefined;
      let estimate: number;
      if (tool) estimate = tool.price;
      else {
        const reserve = own(config.models, rc.canonicalModel)?.output_reserve_tokens ?? config.output_reserve_tokens;
        const output = reserveOutputTokens(rc, reserve, gateway.outputCap(rc.canonicalModel));
        const most = gateway.maxCost(rc.canonicalModel, estimatePromptTokens(rc.rawBody), output, rc.model);
        if (most === null && config.unpriced === 'refuse') throw MODEL_NOT_PRICED(rc.canonicalModel);
        estimate = most ?? 0;
      }
      const account = accountOf(rc);
      const key = rc.key;
      // our own id, not rc.id: a client-chosen x-request-id may repeat
      const id = `${++seq}`;
      const limit = limitOf(account, key);
      const now = gateway.now();
      const w = key?.budgetPeriod === undefined ? undefined : periods.at(key.budgetPeriod, now);
      const record = spendKey(account);
      // a tool call's price is exact: the call that would cross the budget is refused, never charged
      const v = await store.hold(record, id, estimate, { field: w === undefined ? TOTAL : w.field, limit, ttlMs, fit: config.strict || tool !== undefined });
      if (!v.admitted) {
        // refused with room left: strict, and the reservation is larger than that room
        const need = v.value + v.held < limit ? estimate : undefined;
        throw BUDGET_EXCEEDED({ key: account, spent: v.value, limit, held: v.held, need, period: w?.period, resets: w?.end });
      }
      rc.state.set(HOLD, { id, account, record, periods: periods.fieldsAt(now), estimate, limit, window: w } satisfies Hold);
      return undefined;
    });

    /** The first period field kept of each kind (recomputed daily): older ones are dropped from a record as it is charged. */
    let kept: { day: string; first: ReturnType<typeof firstKept> } | undefined;
    const keptAt = (now: number) => {
      const today = periods.fieldsAt(now)[0]!;
      if (kept?.day !== today) kept = { day: today, first: firstKept(now) };
      return kept.first;
    };

    /** Settles the request's hold with its cost, or releases it when nothing is to be charged. */
    async function settle(rc: RequestContext): Promise<void> {
      const h = rc.state.get(HOLD) as Hold | undefined;
      if (!h) return;
      rc.state.delete(HOLD);
      if (!chargeable(rc)) return store.release(h.record, h.id);
      // the core's cost, as every view counts it; the hold when a reload took the model's price away
      const spent = rc.cost ? rc.cost.total : h.estimate;
      const deltas: Record<string, number> = { [TOTAL]: spent };
      for (const f of h.periods) deltas[f] = spent;
      const settled = store.settle(h.record, h.id, deltas);
      const now = gateway.now();
      const [after] = await Promise.all([
        settled,
        buckets && store.bucketIncr(BUCKETS_KEY, now, JSON.stringify([h.account, rc.servedModel]), { usd: spent, requests: 1 }, buckets),
      ]);
      const stale = staleFields(after, keptAt(now));
      if (stale && store.dropFields)
        store
          .dropFields(h.record, stale)
          .catch((err: Error) => log.warn({ err: err.message, key: h.account }, 'budget: could not drop totals of past periods'));
      // the spend after this charge, for plugins that watch budgets (alerts): the store's atomic result
      rc.state.set(BUDGET_SETTLED, statusOf(h.account, after, h.limit, h.window, spent));
    }
    hooks.onResponse.tapPromise(PLUGIN_NAME, settle);
    // a stream charged for what it streamed settles; every other failure releases its hold
    hooks.onError.tapPromise(PLUGIN_NAME, settle);

    hooks.onKeysChange.tap(PLUGIN_NAME, function keysChanged(change: KeysChange) {
      // nobody listens (no alerts extension): no store reads
      if (!hooks.onNotice.isUsed()) return;
      tellStatus(change.names).catch((err: Error) => log.warn({ err: err.message }, 'budget: could not read spend after a change of keys'));
    });
    /** Tells the other plugins (onNotice BUDGET_STATUS) each named key's spend against its budget now. */
    async function tellStatus(names: readonly string[]): Promise<void> {
      for (const name of names) {
        const key = gateway.key(name);
        if (!key) continue;
        const limit = limitOf(name, key);
        const w = periods.at(key.budgetPeriod ?? 'lifetime', gateway.now());
        const rec = await store.counters(spendKey(name));
        if (rec[TOTAL] === undefined) continue; // never spent: no threshold to be past
        hooks.onNotice.call({ fact: BUDGET_STATUS, value: statusOf(name, rec, limit, w, 0) });
      }
    }

    routes.get('/v1/budget', async (ctx) => {
      const history = ctx.query.history;
      if (history !== undefined && history !== 'true' && history !== 'false')
        throw badRequest("query parameter 'history' must be true or false", 'history', quoted(String(history)));
      let body: unknown;
      if (history === 'true') body = await budgetHistory(store, gateway, retentionMs);
      else if (!wantsSeries(ctx)) body = await listBudgets(store, gateway, periods, limitOf);
      else if (retentionMs === 0) throw errors.SERIES_DISABLED({ what: 'spend', extension: 'budget' });
      else body = await readSeries(store, parseSeriesQuery(ctx, SHAPE.dims, retentionMs, gateway.now()), SHAPE, gateway);
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(body);
    });
  },
});

/** A key's spend in `w` (undefined: lifetime) from its record, as BUDGET_SETTLED and BUDGET_STATUS tell it. */
function statusOf(key: string, rec: Record<string, number>, budgetUsd: number, w: PeriodWindow | undefined, costUsd: number): BudgetSettled {
  return { key, spentUsd: spentIn(rec, w), costUsd, budgetUsd, period: w?.period, periodStart: w?.start, resetsAt: w?.end };
}

export type { Config as BudgetConfig };
