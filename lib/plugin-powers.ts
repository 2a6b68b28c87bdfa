/** Powers the host gives plugins' setups beyond their section, the store and the hooks (record and replay are built on them). */
import { isAbsolute, resolve } from 'node:path';
import type { Dispatcher } from 'undici';
import type { ExchangeObserver } from './http/exchange.ts';
import type { Provider } from './provider.ts';
import type { SecretScrubber } from './secrets/scrubber.ts';

/** Where a provider built with `buildProvider` sends its upstream requests. */
export interface TransportOptions {
  /** Given the gateway's pool, the undici Dispatcher the provider's upstream client sends through. */
  transport(pool: Dispatcher): Dispatcher;
}

/** Powers of a provider plugin's setup (`ProviderSetup`). */
export interface ProviderPowers {
  /**
   * Builds a provider from a section of your own as a `[providers.*]` one is, under your name,
   * over `transport` (observers do not see it); close it in your `close`. @throws ConfigError, setup's errors.
   */
  buildProvider(section: Record<string, unknown>, opts: TransportOptions): Promise<Provider>;
  /** A path from the config file made absolute: a relative one is relative to the file's directory. */
  resolvePath(path: string): string;
  /** Hides secrets in text you keep (`scrub`), never reveals them. */
  readonly secrets: SecretScrubber;
}

/** Powers of an extension's setup (`ExtensionSetup`). */
export interface ExtensionPowers {
  /** `observe` hears every upstream HTTP exchange over the gateway's pool from now on (lib/http/exchange.ts). */
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
