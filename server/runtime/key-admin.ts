/** Gateway keys through the admin API (only a secret's SHA-256 is stored), each change a runtime change (runtime.ts). */
import { generateSecret } from '../config/first-run.ts';
import { DEFINED_IN_FILE, KEY_EXISTS, KEY_IN_FILE, KEY_NOT_FOUND, RECORD_UNREADABLE } from '../errors.ts';
import { applyPatch, type KeyPatch, type KeySettings, keySettingsSchema, rfc3339, settingsOf, unenforcedSettings } from '../../lib/key-settings.ts';
import { hashSecret, type KeyListing, keyPrefix, type RuntimeKeyRecord, type UnreadableKeyListing } from '../../lib/keys.ts';
import { parseBody } from '../../lib/schemas.ts';
import { AdminPart, type Commit } from './state.ts';

/** What `POST /v1/admin/keys` accepts (validated and normalized by the admin route). */
export interface KeyInput extends KeySettings {
  name: string;
}

/** A key created at runtime: its listing, with the secret in `key` (the only time it is shown). */
export interface CreatedKey extends Omit<KeyListing, 'key'> {
  key: string;
  /** Settings no enabled extension enforces (absent when none). */
  warnings?: string[];
}

/** A key just rotated: the new secret, shown once. */
export interface RotatedKey {
  name: string;
  source: 'runtime';
  key: string;
  /** Until when the previous secret is still accepted (RFC 3339); null: it stopped at once. */
  previous_key_valid_until: string | null;
}

export class KeyAdmin extends AdminPart {
  /** The keys the config file defines, by name. */
  private get fileKeys(): Record<string, unknown> {
    return this.host.snapshot.config.keys;
  }

  /** Every key, masked, with its settings; then the stored ones that cannot be loaded, with the reason. */
  list(): Array<KeyListing | UnreadableKeyListing> {
    const out: Array<KeyListing | UnreadableKeyListing> = this.host.snapshot.keys.list(this.host.now());
    const unreadable = this.state.unreadable.keys;
    for (const name of [...unreadable.keys()].sort()) {
      if (!Object.hasOwn(this.fileKeys, name)) out.push({ name, source: 'runtime', key: null, unreadable: true, reason: unreadable.get(name)! });
    }
    return out;
  }

  /** One warning per setting of the keys (or of `name`) no enabled extension enforces. */
  warnings(name?: string): string[] {
    const honored = this.host.honoredKeySettings();
    if (!honored) return [];
    const keys = this.host.snapshot.keys;
    const out: string[] = [];
    for (const n of name === undefined ? keys.names() : [name]) {
      const s = keys.settings(n);
      if (s) for (const w of unenforcedSettings(n, s, honored)) out.push(w);
    }
    return out;
  }

  /**
   * Creates a gateway key (first-run format) with its settings; only its SHA-256 is stored.
   * @throws GatewayError 409 when the name is taken.
   */
  create(input: KeyInput): Promise<CreatedKey> {
    return this.change(async (commit) => {
      const { name, ...given } = input;
      if (Object.hasOwn(this.fileKeys, name) || this.state.keyRecords.has(name)) throw KEY_EXISTS(name);
      const unreadable = this.state.unreadable.keys.get(name);
      if (unreadable !== undefined) throw RECORD_UNREADABLE({ what: 'key', name, reason: unreadable, action: 'create a key of that name' });
      const key = generateSecret();
      const rec: RuntimeKeyRecord = {
        hash: hashSecret(key),
        prefix: keyPrefix(key),
        created_at: new Date(this.host.now()).toISOString(),
        settings: settingsOf(given),
      };
      await this.put(commit, name, rec);
      this.host.log.info({ keyName: name }, 'key created');
      return { ...this.listing(name), key, ...this.warned(name) };
    });
  }

  /**
   * Changes a runtime key's settings (a JSON merge patch); the secret stays.
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  update(name: string, patch: KeyPatch): Promise<KeyListing & { warnings?: string[] }> {
    return this.change(async (commit) => {
      const rec = this.runtimeKey(name, 'change its settings');
      // the key as it would be stored passes the schema every other write passes
      const settings = settingsOf(parseBody(keySettingsSchema, applyPatch(rec.settings, patch)));
      await this.put(commit, name, { ...rec, settings });
      this.host.log.info({ keyName: name, fields: Object.keys(patch) }, 'key updated');
      return { ...this.listing(name), ...this.warned(name) };
    });
  }

  /**
   * A new secret for a runtime key; the old one is accepted `graceSeconds` more (0 ends every old one).
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  rotate(name: string, graceSeconds = 0): Promise<RotatedKey> {
    return this.change(async (commit) => {
      const rec = this.runtimeKey(name, 'rotate it');
      const now = this.host.now();
      const key = generateSecret();
      const until = graceSeconds > 0 ? rfc3339(now + graceSeconds * 1000) : null;
      const grace = until === null ? [] : [...(rec.grace ?? []).filter((g) => Date.parse(g.until) > now), { hash: rec.hash, until }];
      const next: RuntimeKeyRecord = {
        hash: hashSecret(key),
        prefix: keyPrefix(key),
        ...(rec.created_at ? { created_at: rec.created_at } : {}),
        settings: rec.settings,
        ...(grace.length ? { grace } : {}),
      };
      await this.put(commit, name, next);
      this.host.log.info({ keyName: name, graceSeconds }, 'key rotated');
      return { name, source: 'runtime', key, previous_key_valid_until: until };
    });
  }

  /**
   * Revokes a runtime key; the next request presenting it gets 401.
   * @throws GatewayError 409 when the config file defines it, 404 when unknown.
   */
  revoke(name: string): Promise<void> {
    return this.change(async (commit) => {
      const state = this.state;
      if (Object.hasOwn(this.fileKeys, name)) throw DEFINED_IN_FILE({ what: 'key', name, file: this.host.snapshot.config.file });
      if (await this.dropUnreadable(commit, 'keys', name, () => this.records.deleteKey(name))) return;
      if (!state.keyRecords.has(name)) throw KEY_NOT_FOUND(name);
      const keyRecords = new Map(state.keyRecords);
      keyRecords.delete(name);
      await commit({ keyRecords }, () => this.records.deleteKey(name));
      this.host.log.info({ keyName: name }, 'key revoked');
    });
  }

  /** The stored record of runtime key `name`; `action` words the 409 for a file key. */
  private runtimeKey(name: string, action: string): RuntimeKeyRecord {
    if (Object.hasOwn(this.fileKeys, name)) throw KEY_IN_FILE({ name, file: this.host.snapshot.config.file, action });
    const unreadable = this.state.unreadable.keys.get(name);
    if (unreadable !== undefined) throw RECORD_UNREADABLE({ what: 'key', name, reason: unreadable, action });
    const rec = this.state.keyRecords.get(name);
    if (!rec) throw KEY_NOT_FOUND(name);
    return rec;
  }

  /** Commits runtime key `name` as `rec`: stored, then in the next snapshot. */
  private put(commit: Commit, name: string, rec: RuntimeKeyRecord): Promise<string[]> {
    return commit({ keyRecords: new Map(this.state.keyRecords).set(name, rec) }, () => this.records.putKey(name, rec));
  }

  private listing(name: string): KeyListing {
    return this.host.snapshot.keys.list(this.host.now()).find((k) => k.name === name)!;
  }

  /** `{warnings}` for key `name` when some of its settings are not enforced (logged too), else {}. */
  private warned(name: string): { warnings?: string[] } {
    const warnings = this.warnings(name);
    for (const w of warnings) this.host.log.warn(w);
    return warnings.length ? { warnings } : {};
  }
}
