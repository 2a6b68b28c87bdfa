/**
 * Powers the host gives plugins' setups beyond their section, the store and the hooks
 * (core/plugins/contract.ts extends ProviderSetup and ExtensionSetup with these). Each is
 * generic: record and replay (plugins/extensions/recorder, plugins/providers/replay) are
 * written on them, with nothing of theirs in the kernel.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Dispatcher } from 'undici';
import type { ExchangeObserver } from './http/exchange.ts';
import type { Provider } from './provider.ts';
import type { SecretScrubber } from './secrets/scrubber.ts';

/** Where a provider built with `buildProvider` sends its upstream requests. */
export interface TransportOptions {
  /**
   * Its transport: given the gateway's connection pool (to forward what you do not answer
   * yourself), return the undici Dispatcher its upstream client sends every request through.
   */
  transport(pool: Dispatcher): Dispatcher;
}

/** Powers of a provider plugin's setup (`ProviderSetup`). */
export interface ProviderPowers {
  /**
   * Builds a provider from a section of your own, exactly as a `[providers.*]` section is
   * built — its `kind` picks the plugin (a kind without one and with a `base_url` is
   * OpenAI-compatible), the plugin's schema checks it, a section without `models` has them
   * discovered — under your provider's name, over `transport` instead of the gateway's pool.
   * Its exchanges are yours: exchange observers (`upstream.observe`) do not see them. Close
   * it in your provider's `close`.
   * @throws ConfigError naming the field at fault; what the plugin's setup throws.
   */
  buildProvider(section: Record<string, unknown>, opts: TransportOptions): Promise<Provider>;
  /** A path from the config file made absolute: a relative one is relative to the file's directory. */
  resolvePath(path: string): string;
  /** Hides secrets in text you keep (`scrub`), never reveals them. */
  readonly secrets: SecretScrubber;
}

/** Powers of an extension's setup (`ExtensionSetup`). */
export interface ExtensionPowers {
  /**
   * The gateway's upstream traffic: `observe(observer)` hears every HTTP exchange any
   * provider's upstream client sends over the gateway's pool, from now on (providers built
   * later and at runtime included), with the attempt it belongs to while a tracing hook
   * (onUpstreamStart or onUpstreamEnd) is tapped. See lib/http/exchange.ts.
   */
  readonly upstream: { observe(observer: ExchangeObserver): void };
  /** A path from the config file made absolute: a relative one is relative to the file's directory. */
  resolvePath(path: string): string;
  /** Hides secrets in text you keep (`scrub`), and takes more detectors (`addDetector`). */
  readonly secrets: SecretScrubber;
}

/** `resolvePath` for a config file in `dir`: an absolute path as is, a relative one from `dir` (the working directory when none). */
export function pathResolver(dir: string | undefined): (path: string) => string {
  return (path) => (isAbsolute(path) ? path : resolve(dir ?? '.', path));
}
