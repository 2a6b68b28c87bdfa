/**
 * The `budget` extension: lifetime USD spend per gateway key, priced from
 * `[pricing."<model>"]`, against `default_budget` or `[extensions.budget.keys.<name>]
 * budget`. docs/design.md "Accounting and limits":
 *   onRequest   403 `model_not_priced` for a model without pricing (fail closed); else a
 *               hold for the request's estimated cost (prompt estimate x input price +
 *               max_tokens or the model's output reserve x output price), refused with 429
 *               `budget_exceeded` when spent + the other in-flight holds >= budget. The
 *               check and the hold are one atomic store step, so N parallel requests can
 *               overspend by at most what was in flight, never by N x cost.
 *   onResponse  settle: adds the actual cost (from the reported usage; the estimate when an
 *               upstream reported none) and drops the hold, atomically, before the last
 *               byte. Cache hits and early responses drop the hold and cost nothing.
 *   onError     drops the hold: a failed call costs nothing.
 * Holds are in the store's non-durable hold space with a TTL, so a crash leaks none.
 * Admin: GET /v1/budget → `[{key, spent_usd, budget_usd, remaining_usd, reserved_usd}]`.
 */
import { z } from 'zod';
import type { RequestContext } from '../../../core/context.ts';
import { defineError } from '../../../core/errors.ts';
import type { GatewayInfo } from '../../../core/plugins/contract.ts';
import { defineExtension } from '../../../core/plugins/contract.ts';
import type { Store } from '../../../core/store/types.ts';
import { accountOf, answeredUpstream } from '../../../core/plugins/helpers.ts';
import { costUsd, estimatePromptTokens, type Price, reserveOutputTokens, usageUsd } from './estimate.ts';

const PLUGIN_NAME = 'budget';
const PREFIX = 's:';
/** rc.state slot: the request's hold. */
const HOLD = Symbol('budget.hold');

const schema = z.strictObject({
  /** USD every key may spend (lifetime). */
  default_budget: z.number().nonnegative(),
  /** Per-key overrides: `[extensions.budget.keys.<name>] budget = 25.0`. */
  keys: z.record(z.string(), z.strictObject({ budget: z.number().nonnegative() })).default({}),
  /** Output tokens reserved for a request that gives no max_tokens. */
  output_reserve_tokens: z.number().int().nonnegative().default(4096),
  /** Per-model reserve: `[extensions.budget.models."<model>"] output_reserve_tokens = 16384`. */
  models: z.record(z.string(), z.strictObject({ output_reserve_tokens: z.number().int().nonnegative() })).default({}),
  /** A hold lapses after this long even if its request never ended (a bug guard; holds die with the process anyway). */
  reservation_ttl_seconds: z.number().positive().default(3600),
});
type Config = z.output<typeof schema>;

interface Hold {
  id: string;
  account: string;
  price: Price;
  estimate: number;
}

/** One entry of GET /v1/budget. */
export interface BudgetEntry {
  key: string;
  spent_usd: number;
  budget_usd: number;
  remaining_usd: number;
  /** Held by requests in flight right now. */
  reserved_usd: number;
}

/** USD rounded to 1e-9 so sums of float prices read cleanly. */
const usd = (x: number): number => Math.round(x * 1e9) / 1e9;

/** A model without `[pricing]`: the budget cannot price it, so it is refused (fail closed). */
export const MODEL_NOT_PRICED = defineError<string>('model_not_priced', 403, (model) =>
  `model '${model}' has no [pricing."${model}"] in the config, and the budget extension refuses unpriced models`, { param: 'model', refusal: 'model_not_priced' });
/** Spent plus what requests in flight hold reaches the key's budget. */
export const BUDGET_EXCEEDED = defineError<{ key: string; spent: number; limit: number; held: number }>('budget_exceeded', 429, (p) =>
  `budget exhausted for key '${p.key}': spent $${usd(p.spent)} of $${p.limit}${p.held ? ` ($${usd(p.held)} more held by requests in flight)` : ''}`, { refusal: 'budget' });

export default defineExtension({
  name: PLUGIN_NAME,
  configSchema: schema,
  setup({ config, store, hooks, routes, gateway, log }) {
    const pricing = () => gateway.pricing() as Record<string, Price>;
    const unpriced = gateway.models().filter((m) => !pricing()[m]);
    if (unpriced.length) log.warn({ models: unpriced }, `budget: these models have no [pricing."<model>"] and will be refused (403 model_not_priced)`);
    const limitOf = (name: string) => config.keys[name]?.budget ?? config.default_budget;
    const ttlMs = config.reservation_ttl_seconds * 1000;
    let seq = 0;

    hooks.onRequest.tapPromise(PLUGIN_NAME, async function reserve(rc: RequestContext) {
      // counting tokens costs nothing upstream
      if (rc.operation === 'count') return undefined;
      const prices = pricing();
      const price = prices[rc.canonicalModel] ?? prices[rc.model];
      if (!price) {
        throw MODEL_NOT_PRICED(rc.canonicalModel);
      }
      const account = accountOf(rc);
      const reserve = config.models[rc.canonicalModel]?.output_reserve_tokens ?? config.output_reserve_tokens;
      const estimate = costUsd(price, estimatePromptTokens(rc.rawBody), reserveOutputTokens(rc, reserve));
      // our own id, not rc.id: a client-chosen x-request-id may repeat
      const id = `${++seq}`;
      const limit = limitOf(account);
      const v = await store.hold(PREFIX + account, id, estimate, { field: 'usd', limit, ttlMs });
      if (!v.admitted) {
        throw BUDGET_EXCEEDED({ key: account, spent: v.value, limit, held: v.held });
      }
      rc.state.set(HOLD, { id, account, price, estimate } satisfies Hold);
      return undefined;
    });

    hooks.onResponse.tapPromise(PLUGIN_NAME, async function settle(rc: RequestContext) {
      const h = rc.state.get(HOLD) as Hold | undefined;
      if (!h) return;
      rc.state.delete(HOLD);
      if (!answeredUpstream(rc) || rc.status >= 400) return store.release(PREFIX + h.account, h.id);
      // a fallback model is priced at its own rate when it has one
      const price = rc.servedModel === rc.canonicalModel ? h.price : (pricing()[rc.servedModel] ?? h.price);
      await store.settle(PREFIX + h.account, h.id, { usd: rc.usage ? usageUsd(price, rc.usage) : h.estimate });
    });

    hooks.onError.tapPromise(PLUGIN_NAME, async function release(rc: RequestContext) {
      const h = rc.state.get(HOLD) as Hold | undefined;
      if (!h) return;
      rc.state.delete(HOLD);
      await store.release(PREFIX + h.account, h.id);
    });

    routes.get('/v1/budget', async (ctx) => {
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(await listBudgets(store, gateway, limitOf));
    });
  },
});

/** One entry per key name (configured, runtime, or with recorded spend), sorted by name. */
async function listBudgets(store: Store, gateway: GatewayInfo, limitOf: (name: string) => number): Promise<BudgetEntry[]> {
  const names = new Set(gateway.keyNames());
  for await (const [k] of store.entries(PREFIX)) names.add(k.slice(PREFIX.length));
  const out: BudgetEntry[] = [];
  for (const key of [...names].sort()) {
    const spent = (await store.counters(PREFIX + key)).usd ?? 0;
    const budget = limitOf(key);
    out.push({ key, spent_usd: usd(spent), budget_usd: budget, remaining_usd: usd(budget - spent), reserved_usd: usd(await store.held(PREFIX + key)) });
  }
  return out;
}

export type { Config as BudgetConfig };
