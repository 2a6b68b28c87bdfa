/**
 * How the admin API shows providers: never the api_key, only its masked form.
 */
import { maskSecret } from '../../lib/keys.ts';
import type { Provider } from '../../lib/provider.ts';
import { type HealthReport, ProviderHealth } from '../../lib/resilience/health.ts';
import { healthOf, type Member } from '../../lib/resilience/member.ts';

/** One provider as `GET /v1/admin/providers` lists it. */
export interface ProviderListing {
  name: string;
  kind: string;
  /** `file`: a `[providers.<name>]` section; `runtime`: created through the admin API. */
  source: 'file' | 'runtime';
  /** The section's `base_url`, or null when the kind's default origin is used. */
  base_url: string | null;
  /** Models served now (discovered ones included). */
  models: string[];
  /** Masked, e.g. `sk-abc…wxyz`. */
  api_key: string;
  /** Circuit breaker: `closed` (healthy), `open` (skipped during the cooldown) or `half_open` (one probe allowed). */
  circuit: 'closed' | 'open' | 'half_open';
  /** Requests in flight now. */
  inflight: number;
  /** EWMA of time to first byte, ms (null before the first answer). */
  latency_ms: number | null;
  /** This instance's traffic to it over the last 5 and 60 minutes (lib/resilience/health.ts). */
  health: HealthReport;
}

/** The health of a provider never routed to. */
const EMPTY = new ProviderHealth();

/** The listing of a built provider and the section it was built from. */
export function providerListing(p: Provider, section: Record<string, unknown>, source: ProviderListing['source'], member: Member | undefined): ProviderListing {
  const key = section.api_key;
  return {
    name: p.name,
    kind: p.kind,
    source,
    base_url: typeof section.base_url === 'string' ? section.base_url : null,
    models: [...p.models],
    api_key: typeof key === 'string' && key ? maskSecret(key) : '',
    ...healthOf(member),
    health: (member?.health ?? EMPTY).report(),
  };
}
