/**
 * Building a provider from its section (config file or a runtime record): find the kind's
 * plugin, split off the routing settings the core reads, validate the rest with the
 * plugin's schema, set it up with its own upstream client, discover its models when the
 * section lists none.
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
import { isAbsolute, resolve } from 'node:path';
import type { BuiltProvider } from '../core/snapshot.ts';
import type { Store } from '../lib/store/types.ts';
import type { ProviderPlugin, RoutingSetting } from '../core/plugins/contract.ts';
import { findPlugin, runSetup } from '../core/plugins/loader.ts';
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
const CLIENT_KEYS = ['max_event_bytes', 'max_connections'];
/** `pricing`: this provider's own prices (`[providers.<name>.pricing."<model>"]`), read by the core for every kind. */
const PRICING_KEY = 'pricing';
/** `max_output_tokens`: its models' output-token caps, read by the core for every kind. */
const OUTPUT_CAP_KEY = 'max_output_tokens';

/**
 * One provider from its section.
 * `discovery: 'throw'` (admin API) rethrows a failed model discovery instead of warning; either
 * way its message, which may quote the upstream's answer, has the section's api_key redacted
 * (the provider is in no snapshot yet, so the gateway's redaction does not know its key).
 * @throws ConfigError naming `providers.<name>` (as `file`) and the field at fault.
 */
export async function buildProvider(
  name: string,
  section: Record<string, unknown>,
  file: string,
  deps: ProviderDeps,
  opts: { discovery?: 'warn' | 'throw' } = {},
): Promise<BuiltProvider> {
  const kind = (section.kind as string | undefined) ?? name;
  // a section named like an installed format or extension package (say [providers.ollama] beside
  // a gw-plugin-ollama client format) is a self-defined upstream, not that package
  let found = await findPlugin('provider', kind, { implicit: section.kind === undefined });
  const ownKind = found !== undefined;
  if (!found && typeof section.base_url === 'string') found = await findPlugin('provider', 'openai');
  const plugin: ProviderPlugin<unknown> | undefined = found?.plugin;
  if (!found || !plugin) {
    throw new ConfigError(
      file,
      ['providers', name],
      `unknown provider kind '${kind}': no plugins/providers/${kind} and no npm package gw-plugin-${kind}; give base_url for an OpenAI-compatible upstream`,
    );
  }
  const accepted = plugin.routing ?? [];
  const own: Record<string, unknown> = {};
  const routingFields: Record<string, unknown> = {};
  const clientFields: Record<string, unknown> = {};
  let pricingField: unknown = {};
  let outputCapField: unknown;
  for (const [k, v] of Object.entries(section)) {
    if (k === PRICING_KEY) pricingField = v;
    else if (k === OUTPUT_CAP_KEY) outputCapField = v;
    else if (CLIENT_KEYS.includes(k)) clientFields[k] = v;
    else if (!(ROUTING_KEYS as readonly string[]).includes(k)) own[k] = v;
    else if (accepted.includes(k as RoutingSetting)) routingFields[k] = v;
    else throw new ConfigError(file, ['providers', name, k], `provider kind '${kind}' does not accept ${k}`);
  }
  const routing = routingSettingsSchema.safeParse(routingFields);
  if (!routing.success) throw ConfigError.fromZod(file, ['providers', name], routing.error);
  const client = clientSettingsSchema.safeParse(clientFields);
  if (!client.success) throw ConfigError.fromZod(file, ['providers', name], client.error);
  const outputCap = outputCapsSchema.optional().safeParse(outputCapField);
  if (!outputCap.success) throw ConfigError.fromZod(file, ['providers', name, OUTPUT_CAP_KEY], outputCap.error);
  const pricing = pricingSchema.safeParse(pricingField);
  if (!pricing.success) throw ConfigError.fromZod(file, ['providers', name, PRICING_KEY], pricing.error);
  const parsed = plugin.configSchema.safeParse(own);
  if (!parsed.success) throw ConfigError.fromZod(file, ['providers', name], parsed.error);
  const log = deps.log.child({ provider: name });
  // one limit per built provider, shared by every client it makes
  const limit = client.data.max_connections === undefined ? undefined : new ConnectionLimit(name, client.data.max_connections);
  if (limit) deps.queues?.register(limit);
  const observed = deps.observers && { observers: deps.observers, upstream: { provider: name, kind, settings: upstreamSettings(section) } };
  const provider = await runSetup(found, name, () =>
    plugin.setup({
      name,
      config: parsed.data,
      store: deps.store.namespace(`provider:${name}`),
      log,
      http: (o) =>
        createUpstreamClient({
          provider: name,
          dispatcher: deps.dispatcher,
          log,
          maxEventBytes: client.data.max_event_bytes,
          limit,
          observer: deps.queues,
          exchanges: observed,
          ...o,
        }),
      // a provider of another kind under this one's name, over a transport of the caller's (lib/plugin-powers.ts)
      buildProvider: async (inner, o) =>
        (await buildProvider(name, inner, file, { ...deps, dispatcher: o.transport(deps.dispatcher), observers: undefined, queues: undefined })).provider,
      resolvePath: (path) => (isAbsolute(path) ? path : resolve(deps.configDir ?? '.', path)),
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
    routing: { maxRetries: routing.data.max_retries, weight: routing.data.weight, outputCap: compileOutputCaps(outputCap.data) },
    pricing: {
      name,
      // the bundled table prices a kind's own plugin only: a self-defined kind served by the openai plugin (base_url) has
      // none; the provider's kind, not the section's: a provider built over another kind (replay) is priced as that kind
      priceKind: ownKind ? provider.kind : undefined,
      pricing: compileConfigured(Object.fromEntries(Object.entries(pricing.data).map(([m, p]) => [m, specOf(p)])), 'provider'),
    },
  };
}
