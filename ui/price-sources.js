// Where the console's spend is priced from, in words (the Spend tile): the sources of the
// prices in force for the models served (GET /v1/admin/models), not a fixed "[pricing]".

const NAMES = { config: '[pricing]', provider: "providers' pricing", bundled: 'the bundled price table' };

/**
 * "priced from the bundled price table", "priced from [pricing] and the bundled price table",
 * with "; 2 unpriced" when some (provider, model) pairs have no price; `models` is the
 * admin model list (null: unknown).
 */
export function priceSources(models) {
  if (!models) return 'priced by the gateway';
  const found = new Set();
  let unpriced = 0;
  for (const m of models) for (const p of m.prices ?? []) p.source ? found.add(p.source) : unpriced++;
  const names = ['config', 'provider', 'bundled'].filter((s) => found.has(s)).map((s) => NAMES[s]);
  const from = names.length ? `priced from ${names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]}` : 'no prices';
  return unpriced ? `${from}; ${unpriced} unpriced` : from;
}
