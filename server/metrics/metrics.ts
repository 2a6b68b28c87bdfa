/**
 * One gateway's Prometheus metrics (docs/metrics.md), in a Registry of its own. Recorded once
 * per request at its end from the RequestContext, kept as plain numbers (families.ts) and made
 * samples when scraped; upstream errors and retries are read from the router's counters.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { RequestContext } from '../../core/context.ts';
import type { GatewayError } from '../../core/errors.ts';
import { cachedTokens, cacheWriteTokens, completionTokens, promptTokens, reasoningTokens } from '../../lib/common/usage-parts.ts';
import type { Hooks } from '../../core/hooks.ts';
import type { ConnectionLimit } from '../../lib/http/limit.ts';
import { accountOf, chargedUsage } from '../../core/plugins/helpers.ts';
import { isModelRefusal } from '../../lib/model-refusal.ts';
import type { Member } from '../../lib/resilience/member.ts';
import { family, type Histo, HistoMap, type Value } from './families.ts';

/** One sample of a plugin's metric family. */
export interface PluginSample {
  labels: Readonly<Record<string, string>>;
  value: number;
}

/** What the metrics read from the running gateway at record and scrape time. */
export interface MetricsSource {
  /** The members (providers with their routing statistics) currently routed to: upstream errors and retries at scrape time. */
  providers(): Iterable<Member>;
}

// seconds; total spans cache hits (sub-ms) to long streams, overhead is gw's own time
const TOTAL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const QUEUE_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300];
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

interface RequestSeries {
  route: string;
  model: string;
  provider: string;
  status: number;
  n: number;
}

/**
 * What one (route, served model, provider) writes to, resolved at its first request and kept:
 * a request then records without building a key or looking a label up.
 * why: docs/benchmarks.md#lean-metric-families
 */
interface LabelSet {
  /** gw_requests_total by status. */
  byStatus: Map<number, RequestSeries>;
  total: Histo;
  overhead: Histo;
  /** undefined without a provider. */
  upstream: Histo | undefined;
  /** gw_tokens_total and gw_cost_usd_total by account (key name), for this model. */
  usage: Map<string, UsageSeries>;
}

interface UsageSeries {
  key: string;
  model: string;
  prompt: number;
  completion: number;
  cached: number;
  cacheWrite: number;
  reasoning: number;
  usd: number;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  /** The text a scrape returns (a cluster worker asks the primary for the whole host's). */
  scrape: () => Promise<string> = () => this.registry.metrics();

  /** route → served model → provider. */
  private readonly labelSets = new Map<string, Map<string, Map<string, LabelSet>>>();
  private readonly usage = new Map<string, UsageSeries>();
  private readonly refusals = new Map<string, number>();
  private readonly total = new HistoMap('route', TOTAL_BUCKETS);
  private readonly upstream = new HistoMap('provider', TOTAL_BUCKETS);
  private readonly overhead = new HistoMap('route', OVERHEAD_BUCKETS);
  private readonly ttfb = new HistoMap('route', TOTAL_BUCKETS);
  private readonly queueWait = new HistoMap('provider', QUEUE_BUCKETS);
  /** Connection queues by provider name (a rebuilt provider replaces its entry). */
  private readonly queues = new Map<string, ConnectionLimit>();
  private cacheHits = 0;
  private cacheMisses = 0;
  private streams = 0;

  constructor(source: MetricsSource, opts: { defaultMetrics?: boolean } = {}) {
    const reg = this.registry;
    family(reg, 'gw_requests_total', 'Gateway requests (every client format) by route, served model, provider and HTTP status sent', 'counter', () =>
      [...this.requestSeries()].map((s) => ({ labels: { route: s.route, model: s.model, provider: s.provider, status: s.status }, value: s.n })),
    );
    this.total.expose(reg, 'gw_request_duration_seconds', 'Time from arrival to the last byte sent (streams included)');
    this.upstream.expose(
      reg,
      'gw_upstream_duration_seconds',
      'Time spent waiting for upstreams: every attempt, retry backoff and fallback until the answer, for streams until the last event',
    );
    this.overhead.expose(reg, 'gw_overhead_seconds', "gw's own time: total minus upstream time");
    this.ttfb.expose(reg, 'gw_stream_ttfb_seconds', 'Streams: time from arrival to the first byte sent to the client');
    family(
      reg,
      'gw_tokens_total',
      'Tokens the upstreams reported (a stream that ended early: what it was charged, maybe estimated), by gateway key name, served model and type: ' +
        'input|cached|cache_write|output|reasoning (the parts; they add up to the total) and prompt|completion (the totals: prompt = input+cached+cache_write, completion = output+reasoning)',
      'counter',
      () =>
        [...this.usage.values()].flatMap((u) => [
          { labels: { key: u.key, model: u.model, type: 'prompt' }, value: u.prompt },
          { labels: { key: u.key, model: u.model, type: 'completion' }, value: u.completion },
          { labels: { key: u.key, model: u.model, type: 'input' }, value: u.prompt - u.cached - u.cacheWrite },
          { labels: { key: u.key, model: u.model, type: 'cached' }, value: u.cached },
          { labels: { key: u.key, model: u.model, type: 'cache_write' }, value: u.cacheWrite },
          { labels: { key: u.key, model: u.model, type: 'output' }, value: u.completion - u.reasoning },
          { labels: { key: u.key, model: u.model, type: 'reasoning' }, value: u.reasoning },
        ]),
    );
    family(
      reg,
      'gw_cost_usd_total',
      'USD the requests cost (rc.cost: each part of the usage at its own rate, lib/pricing/), by gateway key name and served model; unpriced models add nothing',
      'counter',
      () => [...this.usage.values()].map((u) => ({ labels: { key: u.key, model: u.model }, value: u.usd })),
    );
    family(reg, 'gw_cache_requests_total', 'Cache lookups by result (hit|miss)', 'counter', () => [
      { labels: { result: 'hit' }, value: this.cacheHits },
      { labels: { result: 'miss' }, value: this.cacheMisses },
    ]);
    family(
      reg,
      'gw_refusals_total',
      'Requests refused before the upstream by a limit (rate_limit, budget, model_not_priced, model_not_allowed, max_parallel_requests, store_unavailable)',
      'counter',
      () => [...this.refusals].map(([reason, n]) => ({ labels: { reason }, value: n })),
    );
    family(
      reg,
      'gw_upstream_errors_total',
      'Failed upstream calls (every attempt) by provider and upstream status, or the transport failure code',
      'counter',
      () => {
        const out: Value[] = [];
        for (const m of source.providers()) for (const [status, n] of m.failures) out.push({ labels: { provider: m.provider.name, status }, value: n });
        return out;
      },
    );
    family(reg, 'gw_upstream_retries_total', 'Retries on the same provider (attempts after its first, for one request)', 'counter', () => {
      const out: Value[] = [];
      for (const m of source.providers()) if (m.retries) out.push({ labels: { provider: m.provider.name }, value: m.retries });
      return out;
    });
    family(reg, 'gw_inflight_streams', 'Streams open to clients', 'gauge', () => [{ labels: {}, value: this.streams }]);
    family(reg, 'gw_upstream_queue_depth', 'Requests waiting for a connection slot of a provider with max_connections', 'gauge', () =>
      [...this.queues.values()].map((q) => ({ labels: { provider: q.provider }, value: q.depth })),
    );
    this.queueWait.expose(
      reg,
      'gw_upstream_queue_wait_seconds',
      'Time requests waited for a connection slot (providers with max_connections; only requests that waited)',
    );
    // per registry (prom-client allows one set per registry): gw_process_cpu_seconds_total & co.
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: reg, prefix: 'gw_' });
  }

  /** Counts cache misses, tapped after every extension; not tapped without one (it would make every request look one up). */
  tapCacheMisses(hooks: Hooks): void {
    if (!hooks.onCacheLookup.isUsed()) return;
    hooks.onCacheLookup.tap('metrics', () => {
      this.cacheMisses++;
      return undefined;
    });
  }

  /** A plugin's family (ExtensionMetrics), read from `collect` when scraped. @throws Error for a name not `gw_…` or taken. */
  plugin(type: 'counter' | 'gauge', name: string, help: string, collect: () => number | readonly PluginSample[]): void {
    if (!/^gw_[a-z0-9_]+$/.test(name))
      throw new Error(`metric ${JSON.stringify(name)}: a plugin's metric name starts with gw_ (lower-case letters, digits, _)`);
    if (this.registry.getSingleMetric(name)) throw new Error(`metric ${name} is registered already`);
    family(this.registry, name, help, type, () => {
      const v = collect();
      return typeof v === 'number' ? [{ labels: {}, value: v }] : v.map((s) => ({ labels: { ...s.labels }, value: s.value }));
    });
  }

  /** Shows a provider's connection queue (max_connections). */
  register(limit: ConnectionLimit): void {
    this.queues.set(limit.provider, limit);
  }

  /** A request waited `ms` for a connection slot. */
  waited(provider: string, ms: number): void {
    this.queueWait.observe(provider, ms / 1000);
  }

  /** A stream's first byte goes to the client now. */
  streamOpened(rc: RequestContext): void {
    this.streams++;
    this.ttfb.observe(rc.route, (performance.now() - rc.startedAt) / 1000);
  }

  /** The stream ended (completed, failed or the client left). */
  streamClosed(): void {
    this.streams--;
  }

  /**
   * Records one finished gateway request.
   * @param rc the request context, undefined when the request failed before admission (auth, body).
   * @param failure the error the request ended with before its response started (refusals included).
   */
  request(route: string, rc: RequestContext | undefined, status: number, failure: GatewayError | undefined, totalMs: number): void {
    // a model no provider serves (or the key may not call) is whatever the client sent: never a label value
    const model = rc === undefined || isModelRefusal(failure) ? '' : rc.servedModel;
    const provider = rc?.provider ?? '';
    const set = this.labelSet(route, model, provider);
    const s = set.byStatus.get(status);
    if (s) s.n++;
    else set.byStatus.set(status, { route, model, provider, status, n: 1 });
    set.total.observe(totalMs / 1000);
    // refusals happen before any upstream call: a commit failing after the upstream answered is not one
    // (the catalog entry of a refusal says its reason: extensions define their own)
    const reason = failure?.def?.refusal;
    if (reason !== undefined && failure!.upstreamStatus === undefined && rc?.provider === undefined)
      this.refusals.set(reason, (this.refusals.get(reason) ?? 0) + 1);
    if (!rc) return;
    if (rc.cacheHit) {
      this.cacheHits++;
      return;
    }
    if (rc.provider === undefined) return;
    set.upstream!.observe(rc.upstreamMs / 1000);
    // a stream's upstream time runs to its last event: what is left is gw's, as in the request log
    set.overhead.observe(Math.max(0, totalMs - rc.upstreamMs) / 1000);
    // as every accounting view: a failed call counts nothing, unless it was a stream charged for what it streamed
    const u = chargedUsage(rc);
    if (!u) return;
    const account = accountOf(rc);
    let a = set.usage.get(account);
    if (!a) set.usage.set(account, (a = this.usageSeries(account, model)));
    a.prompt += promptTokens(u);
    a.completion += completionTokens(u);
    a.cached += cachedTokens(u);
    a.cacheWrite += cacheWriteTokens(u);
    a.reasoning += reasoningTokens(u);
    if (rc.cost) a.usd += rc.cost.total;
  }

  /** The label set of (route, model, provider), made at its first request. */
  private labelSet(route: string, model: string, provider: string): LabelSet {
    let byModel = this.labelSets.get(route);
    if (!byModel) this.labelSets.set(route, (byModel = new Map()));
    let byProvider = byModel.get(model);
    if (!byProvider) byModel.set(model, (byProvider = new Map()));
    let set = byProvider.get(provider);
    if (!set) {
      set = {
        byStatus: new Map(),
        total: this.total.at(route),
        overhead: this.overhead.at(route),
        upstream: provider === '' ? undefined : this.upstream.at(provider),
        usage: new Map(),
      };
      byProvider.set(provider, set);
    }
    return set;
  }

  /** The token and cost series of (account, model), shared by every route and provider. */
  private usageSeries(account: string, model: string): UsageSeries {
    const key = `${account}\u0000${model}`;
    let a = this.usage.get(key);
    if (!a) this.usage.set(key, (a = { key: account, model, prompt: 0, completion: 0, cached: 0, cacheWrite: 0, reasoning: 0, usd: 0 }));
    return a;
  }

  /** Every gw_requests_total series. */
  private *requestSeries(): Generator<RequestSeries> {
    for (const byModel of this.labelSets.values())
      for (const byProvider of byModel.values()) for (const set of byProvider.values()) yield* set.byStatus.values();
  }
}
