/**
 * A provider from its section (file or runtime record): the host's fields read here (routing,
 * client, pricing, output caps), the plugin and the rest by the loader (core/plugins/load.ts).
 */
import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { ConfigError } from '../lib/config/error.ts';
import { z } from 'zod';
import { createUpstreamClient, DEFAULT_MAX_EVENT_BYTES } from '../lib/http/client.ts';
import { ConnectionLimit, type QueueObserver } from '../lib/http/limit.ts';
import { NO_SECRETS, SecretRedactor } from '../lib/redact.ts';
import { type ExchangeObserver, upstreamSettings } from '../lib/http/exchange.ts';
import { createScrubber, type SecretScrubber } from '../lib/secrets/scrubber.ts';
import { pathResolver } from '../lib/plugin-powers.ts';
import type { BuiltProvider } from '../core/snapshot.ts';
import type { Store } from '../lib/store/types.ts';
import type { RoutingSetting } from '../core/plugins/contract.ts';
import { loadPlugin, setUp } from '../core/plugins/load.ts';
import { outputCapsSchema, routingSettingsSchema } from '../lib/config/provider-schema.ts';
import { compileOutputCaps } from '../lib/output-caps.ts';
import { pricingSchema } from '../lib/config/schema.ts';
import { specOf } from '../lib/pricing/schema.ts';
import { compileConfigured } from '../lib/pricing/book.ts';

/** What building providers needs from the gateway. */
export interface ProviderDeps {
  store: Store;
  log: Logger;
  dispatcher: Dispatcher;
  /** Where connection queues are shown (metrics). */
  queues?: QueueObserver & { register(limit: ConnectionLimit): void };
  /** Told about every exchange over `dispatcher` (extensions' `upstream.observe`). */
  observers?: readonly ExchangeObserver[];
  /** The gateway's secret scrubber, handed to provider setups. */
  secrets?: SecretScrubber;
  /** The config file's directory: where a relative path in a provider section starts. */
  configDir?: string;
}

/** The scrubber of a provider built without a gateway (tests): the built-in detectors only. */
const NO_GATEWAY_SECRETS = createScrubber(() => NO_SECRETS);

const ROUTING_KEYS: readonly RoutingSetting[] = ['max_retries', 'weight'];
/** Settings of every provider section, read by the core for the upstream client. */
const clientSettingsSchema = z.strictObject({
  /** Largest SSE event or JSON body read from the upstream, bytes; past it, 502 `upstream_too_large`. */
  max_event_bytes: z.number().int().positive().default(DEFAULT_MAX_EVENT_BYTES),
  /** Concurrent upstream requests at most; more wait in a visible queue (none by default). */
  max_connections: z.number().int().positive().optional(),
});
const CLIENT_KEYS: readonly string[] = ['max_event_bytes', 'max_connections'];
/** `pricing`: this provider's own prices (`[providers.<name>.pricing."<model>"]`), read by the core for every kind. */
const PRICING_KEY = 'pricing';
/** `max_output_tokens`: its models' output-token caps, read by the core for every kind. */
const OUTPUT_CAP_KEY = 'max_output_tokens';
/** Every field the host reads itself; the plugin's schema sees the rest. */
const HOST_KEYS = new Set<string>([...ROUTING_KEYS, ...CLIENT_KEYS, PRICING_KEY, OUTPUT_CAP_KEY]);

/** The section's fields the host reads, apart from the plugin's. */
function splitSection(section: Record<string, unknown>): { own: Record<string, unknown>; host: Record<string, unknown> } {
  const own: Record<string, unknown> = {};
  const host: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(section)) (HOST_KEYS.has(field) ? host : own)[field] = value;
  return { own, host };
}

/** The host's fields of a provider section, each checked. @throws ConfigError naming the field. */
function hostSettings(host: Record<string, unknown>, accepted: readonly RoutingSetting[], kind: string, file: string, name: string) {
  const at = ['providers', name];
  const pick = (keys: readonly string[]) => Object.fromEntries(keys.filter((k) => k in host).map((k) => [k, host[k]]));
  for (const k of ROUTING_KEYS) if (k in host && !accepted.includes(k)) throw new ConfigError(file, [...at, k], `provider kind '${kind}' does not accept ${k}`);
  const routing = routingSettingsSchema.safeParse(pick(ROUTING_KEYS));
  if (!routing.success) throw ConfigError.fromZod(file, at, routing.error);
  const client = clientSettingsSchema.safeParse(pick(CLIENT_KEYS));
  if (!client.success) throw ConfigError.fromZod(file, at, client.error);
  const outputCap = outputCapsSchema.optional().safeParse(host[OUTPUT_CAP_KEY]);
  if (!outputCap.success) throw ConfigError.fromZod(file, [...at, OUTPUT_CAP_KEY], outputCap.error);
  const pricing = pricingSchema.safeParse(host[PRICING_KEY] ?? {});
  if (!pricing.success) throw ConfigError.fromZod(file, [...at, PRICING_KEY], pricing.error);
  return { routing: routing.data, client: client.data, outputCap: outputCap.data, pricing: pricing.data };
}

/**
 * One provider from its section; a failed discovery warns, or throws with `discovery: 'throw'`
 * (its api_key redacted). @throws ConfigError naming `providers.<name>` and the field at fault.
 */
export async function buildProvider(
  name: string,
  section: Record<string, unknown>,
  file: string,
  deps: ProviderDeps,
  opts: { discovery?: 'warn' | 'throw' } = {},
): Promise<BuiltProvider> {
  const kind = (section.kind as string | undefined) ?? name;
  const { own, host } = splitSection(section);
  const { found, config } = await loadPlugin({
    type: 'provider',
    name: kind,
    file,
    path: ['providers', name],
    settings: own,
    // a section named like an installed format or extension package (say [providers.ollama] beside
    // a gw-plugin-ollama client format) is a self-defined upstream, not that package
    implicit: section.kind === undefined,
    fallbacks: typeof section.base_url === 'string' ? ['openai'] : [],
    hint: 'give base_url for an OpenAI-compatible upstream',
  });
  const plugin = found.plugin;
  const settings = hostSettings(host, plugin.routing ?? [], kind, file, name);
  const log = deps.log.child({ provider: name });
  // one limit per built provider, shared by every client it makes
  const limit = settings.client.max_connections === undefined ? undefined : new ConnectionLimit(name, settings.client.max_connections);
  if (limit) deps.queues?.register(limit);
  const observed = deps.observers && { observers: deps.observers, upstream: { provider: name, kind, settings: upstreamSettings(section) } };
  const provider = await setUp(found, name, () =>
    plugin.setup({
      name,
      config,
      store: deps.store.namespace(`provider:${name}`),
      log,
      http: (o) =>
        createUpstreamClient({
          provider: name,
          dispatcher: deps.dispatcher,
          log,
          maxEventBytes: settings.client.max_event_bytes,
          limit,
          observer: deps.queues,
          exchanges: observed,
          ...o,
        }),
      // a provider of another kind under this one's name, over a transport of the caller's (lib/plugin-powers.ts)
      buildProvider: async (inner, o) =>
        (await buildProvider(name, inner, file, { ...deps, dispatcher: o.transport(deps.dispatcher), observers: undefined, queues: undefined })).provider,
      resolvePath: pathResolver(deps.configDir),
      secrets: deps.secrets ?? NO_GATEWAY_SECRETS,
    }),
  );
  if (provider.models.length === 0 && provider.listModels) {
    try {
      provider.models = await provider.listModels(AbortSignal.timeout(15_000));
      deps.log.info({ provider: name, models: provider.models.length }, 'models discovered');
    } catch (err) {
      if (err instanceof Error) err.message = new SecretRedactor([section.api_key as string]).redact(err.message);
      if (opts.discovery === 'throw') {
        await provider.close?.().catch(() => undefined);
        throw err;
      }
      deps.log.warn({ provider: name, err: (err as Error).message }, 'model discovery failed; the provider serves no model until it succeeds');
    }
  }
  return {
    provider,
    section,
    json: JSON.stringify(section),
    routing: { maxRetries: settings.routing.max_retries, weight: settings.routing.weight, outputCap: compileOutputCaps(settings.outputCap) },
    pricing: {
      name,
      // the bundled table prices a kind's own plugin only: a self-defined kind served by the openai plugin (base_url) has
      // none; the provider's kind, not the section's: a provider built over another kind (replay) is priced as that kind
      priceKind: found.name === kind ? provider.kind : undefined,
      pricing: compileConfigured(Object.fromEntries(Object.entries(settings.pricing).map(([model, price]) => [model, specOf(price)])), 'provider'),
    },
  };
}
