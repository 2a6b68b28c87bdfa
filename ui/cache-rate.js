// Cache hit rate (cached / prompt tokens, as /v1/usage's cache_hit_rate) of usage entries,
// per group and over all of them, summed before dividing: a rate of rates would weigh a
// small group like a large one.

/**
 * `entries`: /v1/usage entries (lifetime or series); `groupOf(entry)`: its group's label.
 * Returns `{ groups: Map<label, rate | null>, all: rate | null }`; null where no prompt token was counted.
 */
export function cacheHitRates(entries, groupOf) {
  const sums = new Map();
  let prompt = 0;
  let cached = 0;
  for (const e of entries ?? []) {
    const g = groupOf(e);
    let s = sums.get(g);
    if (!s) sums.set(g, (s = { prompt: 0, cached: 0 }));
    s.prompt += e.prompt_tokens ?? 0;
    s.cached += e.cached_tokens ?? 0;
    prompt += e.prompt_tokens ?? 0;
    cached += e.cached_tokens ?? 0;
  }
  const rate = (c, p) => (p > 0 ? c / p : null);
  const groups = new Map();
  for (const [g, s] of sums) groups.set(g, rate(s.cached, s.prompt));
  return { groups, all: rate(cached, prompt) };
}
