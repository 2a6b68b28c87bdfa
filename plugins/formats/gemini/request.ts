/** What the Gemini format's own routes share beyond the kit: the debug line of a translation's drops. */
import type { RequestContext } from 'gw/plugin';

/** Logs at debug what a translation dropped (Gemini-only fields), one line per request. */
export function logDropped(rc: RequestContext, provider: string, warnings: string[]): void {
  if (warnings.length > 0 && rc.log.isLevelEnabled('debug')) rc.log.debug({ req: rc.id, provider, warnings }, 'Gemini fields dropped in translation');
}
