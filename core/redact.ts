/**
 * Secrets out of URLs before they reach a log line or an error message: a password in the
 * userinfo (`redis://user:secret@host`) and credential query parameters (`?key=`, `api_key`,
 * `token`).
 */

const QUERY_SECRET = /([?&](?:key|api[-_]?key|token|access_token)=)[^&#]*/gi;

/** `url` with its password and credential query parameters replaced by `***`. */
export function redactUrl(url: string): string {
  let out = url;
  const at = out.indexOf('@');
  if (at > 0 && out.indexOf('//') >= 0 && out.indexOf('//') < at) {
    try {
      const u = new URL(out);
      if (u.password) {
        u.password = '***';
        out = u.toString();
      }
    } catch {
      out = out.replace(/\/\/[^@/]*@/, '//***@');
    }
  }
  return out.indexOf('?') < 0 ? out : out.replace(QUERY_SECRET, '$1***');
}
