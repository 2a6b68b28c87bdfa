/** `npm run prices:update`: writes genai-prices.json from the installed @pydantic/genai-prices (see extract.ts). */
import { writeFileSync } from 'node:fs';
import { KIND_PROVIDERS } from './bundled.ts';
import { extractPrices } from './extract.ts';

const data = extractPrices(Object.values(KIND_PROVIDERS));
writeFileSync(new URL('./genai-prices.json', import.meta.url), `${JSON.stringify(data)}\n`);
process.stdout.write(`genai-prices.json: @pydantic/genai-prices ${data.version}, ${Object.keys(data.providers).length} providers\n`);
