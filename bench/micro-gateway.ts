/**
 * What an in-process micro-benchmark (bench/*-micro.ts, an extension's taps driven without
 * HTTP) needs to set an extension up: the gateway it sees (one key, one model, every model
 * priced, no providers unless given) and the setup call itself.
 */
import type { KeyInfo } from '../core/context.ts';
import type { Hooks } from '../core/hooks.ts';
import type { ExtensionHandle, ExtensionPlugin } from '../core/plugins/contract.ts';
import type { GatewayInfo } from '../lib/gateway-info.ts';
import type { Store } from '../lib/store/types.ts';
import type { Logger } from 'pino';

/** `key` is the only key (named as it says), `model` the only model; `overrides` replace any member. */
export function microGateway(key: KeyInfo, model: string, overrides: Partial<GatewayInfo> = {}): GatewayInfo {
  return {
    maxCost: () => 0,
    outputCap: () => undefined,
    priced: () => true,
    resolveModel: (m) => m,
    models: () => [model],
    keyNames: () => [key.name],
    key: () => key,
    keyTags: () => undefined,
    providers: () => [],
    now: () => Date.now(),
    version: '0',
    maxBodyBytes: 33_554_432,
    ...overrides,
  };
}

/**
 * Runs `plugin`'s setup with `section` (parsed by its schema) on `hooks`, as the gateway
 * would, with no admin routes or /metrics families kept. `store`: its namespace, or none
 * for an extension that keeps nothing.
 */
export async function setupExtension<C>(
  plugin: ExtensionPlugin<C>,
  section: Record<string, unknown>,
  hooks: Hooks,
  gateway: GatewayInfo,
  log: Logger,
  store?: Store,
): Promise<ExtensionHandle | undefined> {
  const handle = await plugin.setup({
    name: plugin.name,
    config: plugin.configSchema.parse(section) as C,
    store: store ?? (undefined as never),
    hooks,
    log,
    routes: { get() {}, post() {}, delete() {} },
    gateway,
    metrics: { counter() {}, gauge() {} },
    upstream: { observe() {} },
    resolvePath: (path) => path,
    secrets: { scrub: (text) => text, addDetector() {}, stored: (text) => text, redactStored() {} },
  });
  return handle ?? undefined;
}
