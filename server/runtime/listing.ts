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

/** A stored runtime provider gw cannot load: listed, never dropped silently; it serves nothing until recreated. */
export interface UnreadableProviderListing {
  name: string;
  /** The section's kind when the record could be read, else null. */
  kind: string | null;
  source: 'runtime';
  base_url: string | null;
  models: string[];
  /** Masked, as for a provider that loads ('' when unknown). */
  api_key: string;
  unreadable: true;
  /** What is wrong, in gw's words (never the api_key). */
  reason: string;
}

/** The listing of stored runtime provider `name` that cannot be loaded; `section` when its record could be read. */
export function unreadableProvider(name: string, section: Record<string, unknown> | undefined, reason: string): UnreadableProviderListing {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const models = section?.models;
  return {
    name,
    kind: str(section?.kind) ?? (section ? name : null),
    source: 'runtime',
    base_url: str(section?.base_url),
    models: Array.isArray(models) ? models.filter((m): m is string => typeof m === 'string') : [],
    api_key: str(section?.api_key) === null ? '' : maskSecret(section!.api_key as string),
    unreadable: true,
    reason,
  };
}
