/**
 * The item caps now come from the SDK (`capped`, `MAX_TURNS`, `MAX_TOOLS`,
 * `MAX_EMBEDDING_INPUTS` from `gw/plugin`, sdk/limits.ts). This re-export keeps the formats
 * that still import it here working until they import `gw/plugin` themselves (issue 24).
 */
export { capped, MAX_EMBEDDING_INPUTS, MAX_TOOLS, MAX_TURNS } from 'gw/plugin';
