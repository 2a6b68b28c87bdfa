/**
 * Gateway keys and the admin token. File keys are held as given; runtime keys only as
 * SHA-256 hashes (shown once at creation). Lookups are one Map.get on the hot path.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { KeyInfo } from './context.ts';

/** SHA-256 hex of a secret. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A key as listed by the admin API: never the secret. */
export interface KeyListing {
  name: string;
  source: 'file' | 'runtime';
  /** Masked form, e.g. `sk-abcd…wxyz`, or the hash prefix for runtime keys. */
  key: string;
}

export class KeyTable {
  private readonly plain = new Map<string, KeyInfo>();
  private readonly hashed = new Map<string, KeyInfo>();
  private readonly listing: KeyListing[] = [];

  /** @param file `[keys.<name>] key = …` entries; @param runtime name → SHA-256 hex of the key. */
  constructor(file: Record<string, { key: string }>, runtime: Record<string, string> = {}) {
    for (const [name, { key }] of Object.entries(file)) {
      const info = Object.freeze({ name });
      this.plain.set(key, info);
      this.listing.push({ name, source: 'file', key: maskSecret(key) });
    }
    for (const [name, hash] of Object.entries(runtime)) {
      if (this.listing.some((k) => k.name === name)) continue;
      this.hashed.set(hash, Object.freeze({ name }));
      this.listing.push({ name, source: 'runtime', key: `sha256:${hash.slice(0, 12)}…` });
    }
  }

  /** True when no key is configured: the gateway runs open. */
  get open(): boolean {
    return this.plain.size === 0 && this.hashed.size === 0;
  }

  /** The key record for a presented secret, or undefined. */
  lookup(secret: string): KeyInfo | undefined {
    return this.plain.get(secret) ?? (this.hashed.size ? this.hashed.get(hashSecret(secret)) : undefined);
  }

  list(): KeyListing[] {
    return this.listing.slice();
  }

  names(): string[] {
    return this.listing.map((k) => k.name);
  }
}

/** Constant-time comparison of a presented token with the expected one (hashes first so lengths match). */
export function tokenEquals(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** `sk-abcd…wxyz` for secrets long enough to keep 8 characters hidden, else `***`. */
export function maskSecret(secret: string): string {
  if (secret.length < 16) return '***';
  return `${secret.slice(0, 6)}…${secret.slice(-4)}`;
}

/** The bearer token of an `Authorization` header (the scheme in any case, RFC 7235), or undefined. */
export function bearer(header: string | undefined): string | undefined {
  if (!header || header.length <= 7 || header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  return header.slice(7).trim() || undefined;
}
