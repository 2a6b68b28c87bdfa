/**
 * The bundled price table's data file (server/pricing/genai-prices.json, what the gateway
 * reads instead of loading @pydantic/genai-prices) is the installed package's data: after
 * updating the package, `npm run prices:update` must be run, or this fails.
 */
import { readFileSync } from 'node:fs';
import test from 'ava';
import { KIND_PROVIDERS } from '../../server/pricing/bundled.ts';
import { extractPrices } from '../../server/pricing/extract.ts';

test('genai-prices.json is what npm run prices:update writes from the installed package', (t) => {
  const file = JSON.parse(readFileSync(new URL('../../server/pricing/genai-prices.json', import.meta.url), 'utf8'));
  const fresh = extractPrices(Object.values(KIND_PROVIDERS));
  t.is(file.version, fresh.version);
  t.deepEqual(Object.keys(file.providers).sort(), Object.keys(fresh.providers).sort());
  t.deepEqual(file, JSON.parse(JSON.stringify(fresh)));
  t.true(Object.keys(fresh.providers).includes('anthropic') && Object.keys(fresh.providers).includes('google'));
});
