/** The host's GatewayInfo (lib/gateway-info.ts): what plugins may know of the gateway, read from the snapshot current at each call. */
import type { Snapshot } from '../core/snapshot.ts';
import { GW_VERSION } from '../lib/package-info.ts';
import type { GatewayConfig } from '../lib/config/schema.ts';
import type { GatewayInfo } from '../lib/gateway-info.ts';

/** `current` answers the snapshot in force (replaced whole by every change); `clock` is the gateway's, epoch ms. */
export function gatewayInfo(current: () => Snapshot, clock: () => number, config: GatewayConfig): GatewayInfo {
  return {
    maxCost: (model, prompt, output, asked) => {
      const snapshot = current();
      return snapshot.prices.maxCost(model, snapshot.table.find(model)?.members ?? [], prompt, output, clock(), asked);
    },
    priced: (model) => {
      const snapshot = current();
      return snapshot.prices.priced(model, snapshot.table.find(model)?.members ?? []);
    },
    outputCap(model) {
      let most: number | undefined;
      for (const m of current().table.find(model)?.members ?? []) {
        const cap = m.settings.outputCap?.(model);
        if (cap === undefined) return undefined;
        if (most === undefined || cap > most) most = cap;
      }
      return most;
    },
    resolveModel: (m) => current().table.resolve(m),
    models: () => current().table.models(),
    keyNames: () => current().keys.names(),
    key: (name) => current().keys.info(name),
    keyTags: (name) => current().keys.info(name)?.tags,
    providers: () =>
      Array.from(current().table.members.values(), (m) => ({
        name: m.provider.name,
        kind: m.provider.kind,
        circuit: m.breaker.state,
        health: () => m.health.report(),
      })),
    now: clock,
    version: GW_VERSION,
    maxBodyBytes: config.max_body_bytes,
  };
}
