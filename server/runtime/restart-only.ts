/**
 * Settings a reload cannot apply: they shape the listener, the store or the hook pipeline,
 * which are built once at startup. A reload keeps their running values and says so.
 */
import type { GatewayConfig } from '../../lib/config/schema.ts';

/** `responses`, `formats`: client formats read their sections once, when they are set up. */
const RESTART_ONLY = [
  'listen',
  'data_dir',
  'max_body_bytes',
  'shutdown_timeout_seconds',
  'request_timeout_seconds',
  'store',
  'extensions',
  'responses',
  'formats',
] as const;

/**
 * The config to run after a reload: `next` with the restart-only settings of `running`,
 * and one warning per restart-only setting that changed.
 */
export function applyReloadable(running: GatewayConfig, next: GatewayConfig): { config: GatewayConfig; warnings: string[] } {
  const config = { ...next } as Record<string, unknown>;
  const warnings: string[] = [];
  for (const k of RESTART_ONLY) {
    if (JSON.stringify(running[k]) !== JSON.stringify(next[k])) {
      warnings.push(
        `${k === 'extensions' || k === 'responses' || k === 'formats' ? `[${k}]` : k} changed: it takes effect after a restart; the running value is kept`,
      );
    }
    config[k] = running[k];
  }
  return { config: config as GatewayConfig, warnings };
}
