/** The one loop of every native passthrough: a vendor side's NativeRequest sent, the answer handed back unchanged. */
import type { UpstreamClient } from '../http/client.ts';
import type { NativeCall } from '../provider.ts';
import type { VendorSide } from './side.ts';

/**
 * The native call of a protocol at `origin`, reached with `http` (reading the protocol's
 * errors) and `auth`: the request's body (else the client's bytes, else the body object) to the
 * side's URL for the operation; events as they arrive, or the whole text with its status.
 */
export function nativeCall(
  http: UpstreamClient,
  side: Required<Pick<VendorSide, 'native'>>,
  origin: string,
  auth: Readonly<Record<string, string>>,
): NativeCall {
  return async function native(body, call, op) {
    const r = side.native(op, body, call, origin);
    const res = await http.send(r.url, { headers: { ...auth, ...r.headers }, body: r.body ?? call.rawBody ?? body, signal: call.signal, log: call.log });
    if (r.stream) return { type: 'stream', events: await http.events(res, r.url, call.signal, r.isTerminal) };
    const raw = await http.text(res, r.url, call.signal);
    return { type: 'json', status: res.statusCode, raw, contentType: String(res.headers['content-type'] ?? 'application/json') };
  };
}
