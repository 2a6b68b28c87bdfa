/**
 * Requests to an upstream, with progress relayed as it arrives. The SDK's client hands a
 * notification to its handler a microtask after reading it but settles a result at once, and
 * forgets a request's progress handler with its result: a last progress notification read in
 * the same chunk as the result (a stdio server writes both at once) was dropped. So gw puts a
 * progress token of its own in the request's `_meta`, reads progress notifications off the
 * transport itself, in order, before the SDK sees the result, and restarts the request's
 * timeout on each (what the SDK's `resetTimeoutOnProgress` would have done).
 */
import { type Client, SdkError, SdkErrorCode, type Transport } from '@modelcontextprotocol/client';
import { AS_IS } from './as-is.ts';

export type OnProgress = (p: { progress: number; total?: number; message?: string }) => void;

export interface RequestOptions {
  signal?: AbortSignal;
  onprogress?: OnProgress;
  /** Longest wait without an answer or a progress notification, ms. */
  timeoutMs: number;
}

/** How long the SDK itself may wait for a request that reports progress: gw's own timer decides before. */
const NO_SDK_TIMEOUT_MS = 24 * 3_600_000;

/** Progress relays by token, one table per client (its transport reads into it). */
const RELAYS = new WeakMap<Client, Map<string, OnProgress>>();
let seq = 0;

/** Reads progress notifications of gw's tokens off `client`'s transport (call once, after connect). */
export function relayProgress(client: Client): void {
  const relays = new Map<string, OnProgress>();
  RELAYS.set(client, relays);
  const transport = client.transport as Transport;
  const sdk = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as { method?: string; params?: { progressToken?: unknown; progress?: number; total?: number; message?: string } };
    if (m.method === 'notifications/progress' && typeof m.params?.progressToken === 'string') {
      const relay = relays.get(m.params.progressToken);
      if (relay) {
        const { progressToken: _, ...p } = m.params;
        relay(p as Parameters<OnProgress>[0]);
        return;
      }
    }
    sdk?.(message, extra);
  };
}

/**
 * Sends `method` on `client` and resolves with its result as the upstream gave it.
 * @throws what the SDK throws; an SdkError RequestTimeout after `timeoutMs` without an answer or progress.
 */
export async function request(client: Client, method: string, params: Record<string, unknown>, opts: RequestOptions): Promise<unknown> {
  const relays = RELAYS.get(client);
  if (!opts.onprogress || !relays) return client.request({ method, params }, AS_IS, { signal: opts.signal, timeout: opts.timeoutMs });
  const token = `gw-${++seq}`;
  const meta = (params._meta as Record<string, unknown> | undefined) ?? {};
  const timer = new AbortController();
  let timedOut = false;
  let t: NodeJS.Timeout;
  const arm = () => {
    clearTimeout(t);
    t = setTimeout(() => {
      timedOut = true;
      timer.abort();
    }, opts.timeoutMs);
  };
  const onprogress = opts.onprogress;
  relays.set(token, (p) => {
    arm();
    onprogress(p);
  });
  arm();
  try {
    return await client.request({ method, params: { ...params, _meta: { ...meta, progressToken: token } } }, AS_IS, {
      signal: opts.signal ? AbortSignal.any([opts.signal, timer.signal]) : timer.signal,
      timeout: NO_SDK_TIMEOUT_MS,
    });
  } catch (err) {
    if (timedOut) throw new SdkError(SdkErrorCode.RequestTimeout, `no answer nor progress within ${opts.timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(t!);
    relays.delete(token);
  }
}
