/**
 * The `budget` extension: USD spend per gateway key, at the core's prices (`[pricing]`, a
 * provider's `pricing`, the bundled table: docs/design.md "Pricing"),
 * against the key's own `budget` (virtual keys), else `[extensions.budget.keys.<name>]
 * budget`, else `default_budget`; per the key's `budget_period` (daily, weekly, monthly:
 * UTC calendar periods, weeks from Monday; lifetime by default), each period spending into
 * its own counter (spend.ts), so spend resets at the boundary and past periods stay
 * readable. docs/design.md "Accounting and limits", "Virtual keys":
 *   onRequest   403 `model_not_priced` for a model without a price (fail closed; `unpriced =
 *               "allow"` admits it at no cost); else a hold for the request's most cost
 *               (`gateway.maxCost`: the prompt estimate at the highest input-side rate,
 *               cache writes included, + max_tokens or the model's output reserve at the
 *               output rate, at the dearest provider serving it), refused with 429
 *               `budget_exceeded` when spent + the other in-flight holds >= budget, and with
 *               `strict = true` also when the hold itself does not fit in what is left
 *               (budget - spent - other holds). The check and the hold are one atomic store
 *               step, so N parallel requests can overspend by at most what was in flight,
 *               never by N x cost; strict ones not at all, as long as each request costs no
 *               more than it reserved (its output cap bounds the output; the prompt
 *               estimate is ~1.3x English).
 *   onResponse  settle: adds the actual cost (`rc.cost`, as the request log and metrics
 *               count it: the charged usage, each part at its own rate) and
 *               drops the hold, atomically, before the last byte. Cache hits and early
 *               responses drop the hold and cost nothing.
 *   onError     a stream that ended early after its first byte (`rc.partial`) settles like
 *               an answer, from what it streamed (core/pipeline/partial.ts); any other
 *               failure drops the hold: a call that failed before its first byte costs nothing.
 * MCP tools/call (operation `tool`, docs/mcp.md) cost their server's price per call (`MCP_CALL`'s
 * `price`, known before the call): the hold is that price, and always strict, so the call that
 * would cross the budget is the one refused; a call the tool answered (`isError` included) is
 * charged it, a failed one releases it.
 * The hold sits on the counter of the period the request was admitted in, and is settled
 * there: a request admitted just before a boundary is charged to that period.
 * Holds are in the store's non-durable hold space with a TTL, so a crash leaks none.
 * Admin: GET /v1/budget → `[{key, spent_usd, budget_usd, remaining_usd, reserved_usd,
 * period, period_start, resets_at}]` (the current period; no start and reset for lifetime);
 * `?history=true` → every recorded period `[{key, period, period_start, resets_at, spent_usd}]`.
 * Over time: the settled USD per (key, model, UTC hour), written with the settlement (one
 * store batch), kept `retention_days` (default 90; 0 = none); with any of `bucket`,
 * `group_by`, `from`, `to` → `[{bucket_start, <group fields>, spent_usd, requests}]`.
 */
import { z } from 'zod';
import {
  accountOf,
  badRequest,
  BUCKETS_KEY,
  BUDGET_SETTLED,
  type BudgetSettled,
  chargeable,
  DAY_MS,
  defineError,
  defineExtension,
  HOUR_MS,
  type KeyInfo,
  MCP_CALL,
  type McpCall,
  own,
  parseSeriesQuery,
  readSeries,
  type RequestContext,
  SERIES_DISABLED,
  type SeriesShape,
  wantsSeries,
} from 'gw/plugin';
import { estimatePromptTokens, reserveOutputTokens } from './estimate.ts';
import { PeriodClock, type PeriodWindow, rfc3339 } from './period.ts';
import { budgetHistory, counterKey, listBudgets, usd } from './spend.ts';

export type { BudgetEntry, HistoryEntry } from './spend.ts';

const PLUGIN_NAME = 'budget';
/** rc.state slot: the request's hold. */
const HOLD = Symbol('budget.hold');

const schema = z.strictObject({
  /** USD every key may spend, in its budget_period (lifetime unless the key gives one). */
  default_budget: z.number().nonnegative(),
  /** Per-key overrides: `[extensions.budget.keys.<name>] budget = 25.0`. */
  keys: z.record(z.string(), z.strictObject({ budget: z.number().nonnegative() })).default({}),
  /**
   * Refuse a request whose own reservation does not fit in what is left, not only once the
   * budget is reached (off: one request may overshoot, as the contract allows).
   */
  strict: z.boolean().default(false),
  /** Output tokens reserved for a request that gives no max_tokens. */
  output_reserve_tokens: z.number().int().nonnegative().default(4096),
  /** Per-model reserve: `[extensions.budget.models."<model>"] output_reserve_tokens = 16384`. */
  models: z.record(z.string(), z.strictObject({ output_reserve_tokens: z.number().int().nonnegative() })).default({}),
  /** A hold lapses after this long even if its request never ended (a bug guard; holds die with the process anyway). */
  reservation_ttl_seconds: z.number().positive().default(3600),
  /** Days the hourly spend buckets are kept; 0 keeps lifetime spend only. */
  retention_days: z.number().nonnegative().default(90),
  /** A model with no price anywhere: `refuse` it (403 model_not_priced), or `allow` it at no cost. */
  unpriced: z.enum(['refuse', 'allow']).default('refuse'),
});
type Config = z.output<typeof schema>;

interface Hold {
  id: string;
  /** The key name it is accounted to. */
  account: string;
  /** The counter of the period the request was admitted in (spend.ts). */
  counter: string;
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
/**
 * Spent plus what requests in flight hold reaches the key's budget (for the current period
 * when it has one), or, strict, this request's reservation (`need`) does not fit in what is left.
 */
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
  setup({ config, store, hooks, routes, gateway }) {
    /** The key's own budget, else its [extensions.budget.keys.<name>] one, else the default. */
    const limitOf = (name: string, key: KeyInfo | undefined) => key?.budget ?? own(config.keys, name)?.budget ?? config.default_budget;
    const periods = new PeriodClock();
    const ttlMs = config.reservation_ttl_seconds * 1000;
    const retentionMs = config.retention_days * DAY_MS;
    const buckets = retentionMs > 0 ? { bucketMs: HOUR_MS, retentionMs } : undefined;
    let seq = 0;

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
      const w = key?.budgetPeriod === undefined ? undefined : periods.at(key.budgetPeriod, gateway.now());
      const counter = counterKey(account, w);
      // a tool call's price is exact: the call that would cross the budget is refused, never charged
      const v = await store.hold(counter, id, estimate, { field: 'usd', limit, ttlMs, fit: config.strict || tool !== undefined });
      if (!v.admitted) {
        // refused with room left: strict, and the reservation is larger than that room
        const need = v.value + v.held < limit ? estimate : undefined;
        throw BUDGET_EXCEEDED({ key: account, spent: v.value, limit, held: v.held, need, period: w?.period, resets: w?.end });
      }
      rc.state.set(HOLD, { id, account, counter, estimate, limit, window: w } satisfies Hold);
      return undefined;
    });

    /** Settles the request's hold with its cost, or releases it when nothing is to be charged. */
    async function settle(rc: RequestContext): Promise<void> {
      const h = rc.state.get(HOLD) as Hold | undefined;
      if (!h) return;
      rc.state.delete(HOLD);
      if (!chargeable(rc)) return store.release(h.counter, h.id);
      // the core's cost, as the request log and metrics count it (a fallback at its own rate); the
      // hold when nothing priced what was served (a reload took the price away, an unpriced
      // member of a priced model, or no usage at all): an upper bound, 0 for an allowed unpriced model
      const spent = rc.cost ? rc.cost.total : h.estimate;
      const settled = store.settle(h.counter, h.id, { usd: spent });
      const [after] = await Promise.all([
        settled,
        buckets && store.bucketIncr(BUCKETS_KEY, gateway.now(), JSON.stringify([h.account, rc.servedModel]), { usd: spent, requests: 1 }, buckets),
      ]);
      // the spend after this charge, for plugins that watch budgets (alerts): the store's atomic result
      rc.state.set(BUDGET_SETTLED, {
        key: h.account,
        spentUsd: after.usd ?? spent,
        costUsd: spent,
        budgetUsd: h.limit,
        period: h.window?.period,
        periodStart: h.window?.start,
        resetsAt: h.window?.end,
      } satisfies BudgetSettled);
    }
    hooks.onResponse.tapPromise(PLUGIN_NAME, settle);
    // a stream charged for what it streamed settles; every other failure releases its hold
    hooks.onError.tapPromise(PLUGIN_NAME, settle);

    routes.get('/v1/budget', async (ctx) => {
      const history = ctx.query.history;
      if (history !== undefined && history !== 'true' && history !== 'false')
        throw badRequest(`query parameter 'history' must be true or false; got '${String(history)}'`, 'history');
      let body: unknown;
      if (history === 'true') body = await budgetHistory(store);
      else if (!wantsSeries(ctx)) body = await listBudgets(store, gateway, periods, limitOf);
      else if (retentionMs === 0) throw SERIES_DISABLED({ what: 'spend', extension: 'budget' });
      else body = await readSeries(store, parseSeriesQuery(ctx, SHAPE.dims, retentionMs, gateway.now()), SHAPE, gateway);
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(body);
    });
  },
});

export type { Config as BudgetConfig };
