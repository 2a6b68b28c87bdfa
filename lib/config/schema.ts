/**
 * The config file's schema (docs/design.md "Config file"). Plugin sections are shape-checked
 * here; each plugin's own schema checks its section when loaded.
 */
import { z } from 'zod';
import { keySettingsShape } from '../key-settings.ts';
import { MCP_DEFAULTS, mcpServerNameSchema, mcpServerSchema, mcpSettingsSchema } from './mcp-schema.ts';
import { priceConfigSchema } from '../pricing/schema.ts';

const hostPort = z.string().regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'expected "<host>:<port>", e.g. "127.0.0.1:8080"');
const name = z.string().regex(/^[A-Za-z0-9_.-]+$/, 'expected a name of letters, digits, "_", "-" or "."');

/** A gateway API key entry: `[keys.<name>] key = "sk-…"` and its virtual key settings (lib/key-settings.ts). */
export const keyEntrySchema = z.strictObject({
  key: z.string().min(16, 'expected a key of at least 16 characters'),
  ...keySettingsShape,
});

/** `[pricing."<model>"]`: USD per million tokens by part, tiers and dated changes (lib/pricing/schema.ts). */
export const pricingSchema = z.record(z.string().min(1), priceConfigSchema);

/** Load-balancing strategy of a model group. */
export const strategySchema = z.enum(['round_robin', 'weighted', 'least_busy', 'latency']);

/** `[routing]`: strategy and prompt-cache affinity (global and per model), circuit breaker settings. */
export const routingSchema = z.strictObject({
  strategy: strategySchema.default('round_robin'),
  /** Per model group: `[routing.models."<model>"] strategy = "weighted"`, `affinity = false`; absent fields take the global ones. */
  models: z.record(z.string().min(1), z.strictObject({ strategy: strategySchema.optional(), affinity: z.boolean().optional() })).default({}),
  /** Turns of one conversation stay on one member of a group while it is healthy (lib/resilience/affinity.ts). */
  affinity: z.boolean().default(true),
  /** Seconds a conversation's member is kept without a turn. */
  affinity_ttl_seconds: z.number().positive().default(3600),
  /** Conversations remembered per instance (least recently used dropped first). */
  affinity_max_entries: z.number().int().min(1).default(100_000),
  /** Consecutive failures that open a provider's circuit. */
  breaker_failures: z.number().int().min(1).default(5),
  /** Seconds an open circuit skips the provider before one half-open probe. */
  breaker_cooldown_seconds: z.number().positive().default(30),
});

export const gatewayConfigSchema = z.strictObject({
  listen: hostPort.default('127.0.0.1:8080'),
  admin_token: z.string().min(16, 'expected a token of at least 16 characters').optional(),
  data_dir: z.string().min(1).default('data'),
  max_body_bytes: z.number().int().positive().default(33_554_432),
  /** Bound in seconds for in-flight requests and streams to finish on SIGINT/SIGTERM. */
  shutdown_timeout_seconds: z.number().positive().default(30),
  /** Seconds a client has to send a whole request; past it the connection is closed. */
  request_timeout_seconds: z.number().positive().default(120),
  keys: z.record(name, keyEntrySchema).default({}),
  providers: z.record(name, z.looseObject({ kind: name.optional() })).default({}),
  aliases: z.record(z.string().min(1), z.string().min(1)).default({}),
  pricing: pricingSchema.default({}),
  fallbacks: z.record(z.string().min(1), z.array(z.string().min(1))).default({}),
  routing: routingSchema.default({
    strategy: 'round_robin',
    models: {},
    affinity: true,
    affinity_ttl_seconds: 3600,
    affinity_max_entries: 100_000,
    breaker_failures: 5,
    breaker_cooldown_seconds: 30,
  }),
  extensions: z.record(name, z.record(z.string(), z.unknown())).default({}),
  /** Third-party client formats: `[formats.<name>]` enables `gw-plugin-<name>` and holds its settings. */
  formats: z.record(name, z.record(z.string(), z.unknown())).default({}),
  /** The store: `url`'s scheme names the store plugin (none: LevelDB under `data_dir`); other keys are the plugin's. */
  store: z
    .looseObject({
      url: z
        .string()
        .regex(/^[a-z][a-z0-9-]*:\/\//i, 'expected a URL whose scheme names the store, e.g. "redis://host:port/db"')
        .optional(),
    })
    .optional(),
  /** Built-in formats' sections (`FormatPlugin.section`): `[responses]`. */
  responses: z.record(z.string(), z.unknown()).optional(),
  /** Upstream MCP servers behind `/mcp`, and the MCP gateway's settings (lib/config/mcp-schema.ts, docs/mcp.md). */
  mcp_servers: z.record(mcpServerNameSchema, mcpServerSchema).default({}),
  mcp: mcpSettingsSchema.default(MCP_DEFAULTS),
});

export type RoutingConfig = z.output<typeof routingSchema>;

/** The validated config file; `file` and `dir` say where it came from. */
export type GatewayConfig = z.output<typeof gatewayConfigSchema> & { file: string; dir: string };
