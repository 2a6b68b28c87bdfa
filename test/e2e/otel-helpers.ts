/**
 * Shared setup of the otel extension's tests: a mock upstream, a local OTLP receiver and a
 * gateway exporting to it, torn down with the test.
 */
import type { ExecutionContext } from 'ava';
import { baseConfig, KEY, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type OtlpReceiver, type ReceivedSpan, type ReceiverMode } from '../helpers/otlp-receiver.ts';
import { type Handler, type MockUpstream, startUpstream } from '../helpers/upstream.ts';

/** OTLP SpanKind values as received. */
export const SERVER = 2;
export const CLIENT = 3;

export interface OtelSetup {
  up: MockUpstream;
  rx: OtlpReceiver;
  gw: TestGateway;
}

/**
 * Starts the three; `providers(origin)` gives the provider sections, `otel` more lines of
 * `[extensions.otel]` (exports every 20 ms by default), `extra` other sections, `endpoint`
 * another collector than the receiver (one that is down).
 */
export async function setupOtel(
  t: ExecutionContext,
  handler: Handler,
  providers: (origin: string) => string,
  opts: { otel?: string; extra?: string; mode?: ReceiverMode; endpoint?: string } = {},
): Promise<OtelSetup> {
  const up = await startUpstream(handler);
  const rx = await startReceiver(opts.mode);
  const gw = await startGateway(
    baseConfig(`${providers(up.origin)}
${opts.extra ?? ''}
[extensions.otel]
endpoint = "${opts.endpoint ?? rx.endpoint}"
schedule_delay_ms = 20
metrics_interval_ms = 100
${opts.otel ?? ''}
`),
  );
  t.teardown(async () => {
    await gw.stop();
    await up.close();
    await rx.close();
  });
  return { up, rx, gw };
}

/** POSTs JSON with the default key. */
export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'x-api-key': KEY, 'x-goog-api-key': KEY, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The spans of one trace once its server span arrived: the server span and its children by start. */
export async function traceOf(rx: OtlpReceiver, traceId: string, clients: number): Promise<{ server: ReceivedSpan; clients: ReceivedSpan[] }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const spans = rx.spans.filter((s) => s.traceId === traceId);
    const server = spans.find((s) => s.kind === SERVER);
    const children = spans.filter((s) => s.kind === CLIENT).sort((a, b) => a.startMs - b.startMs);
    if (server && children.length >= clients) return { server, clients: children };
    if (Date.now() > deadline) throw new Error(`trace ${traceId}: got ${spans.length} spans (${spans.map((s) => s.name).join(', ')})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A provider section of the self-defined kind `local` (a common-format upstream). */
export function localProvider(origin: string, models: string[], extra = ''): string {
  return `[providers.local]\napi_key = "sk-upstream-0123456789abcdef"\nbase_url = "${origin}/v1"\nmodels = ${JSON.stringify(models)}\n${extra}\n`;
}
