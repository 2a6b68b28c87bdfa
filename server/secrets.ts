/**
 * The gateway's secret scrubber (lib/secrets/scrubber.ts): the secrets of the running
 * configuration — every provider's api_key (the snapshot's redactor), the config's gateway
 * keys and its admin token — rebuilt when the snapshot changes, then the detectors.
 * Runtime-created gateway keys are stored as hashes only: the key-format detector finds them.
 */
import type { Snapshot } from '../core/snapshot.ts';
import { SecretRedactor } from '../lib/redact.ts';
import { createScrubber, type KnownSecrets, type SecretScrubber } from '../lib/secrets/scrubber.ts';

/** The scrubber of a gateway whose current snapshot `current()` gives. */
export function gatewaySecrets(current: () => Snapshot): SecretScrubber {
  let seen: Snapshot | undefined;
  let known: KnownSecrets = { redact: (text) => text };
  return createScrubber(() => {
    const snap = current();
    if (snap !== seen) {
      seen = snap;
      const own = new SecretRedactor([...Object.values(snap.config.keys).map((k) => k.key), snap.config.admin_token ?? '']);
      known = { redact: (text) => own.redact(snap.secrets.redact(text)) };
    }
    return known;
  });
}
