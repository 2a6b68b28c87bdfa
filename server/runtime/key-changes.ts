/**
 * Which keys a snapshot swap changed, for the onKeysChange hook: names added, removed, or
 * whose settings differ. A rotation (a new secret, grace periods) changes no setting.
 */
import type { KeyTable } from '../../lib/keys.ts';

/** Names whose settings differ between `before` and `after` (present in one only included), sorted. */
export function changedKeyNames(before: KeyTable, after: KeyTable): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const name of after.names()) {
    seen.add(name);
    const was = before.settings(name);
    if (was === undefined || JSON.stringify(was) !== JSON.stringify(after.settings(name))) out.push(name);
  }
  for (const name of before.names()) if (!seen.has(name)) out.push(name);
  return out.sort();
}
