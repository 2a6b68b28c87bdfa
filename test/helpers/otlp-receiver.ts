/**
 * A local OTLP/HTTP receiver for tests: a real HTTP server on 127.0.0.1 that decodes what gw
 * exports — protobuf through the OpenTelemetry project's own generated protobuf root
 * (`@opentelemetry/otlp-transformer` 0.214.0, the last release that ships it, installed as
 * `otlp-transformer-protobufjs`: an independent codec from the one gw's exporter writes
 * with), or OTLP JSON — into plain spans and metric points. It can also play a collector
 * that is down (refuses), hangs (never answers) or fails (503).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root: any = require('otlp-transformer-protobufjs/build/src/generated/root.js');
const v1 = root.opentelemetry.proto.collector;

/** A span as received. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; timeMs: number; attributes: Record<string, unknown> }>;
  /** 0 unset, 1 ok, 2 error. */
  status: number;
  statusMessage: string;
  resource: Record<string, unknown>;
  scope: string;
}

/** A histogram metric point as received. */
export interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Record<string, unknown>;
  count: number;
  sum: number;
  bounds: number[];
  /** counts[i]: values in (bounds[i-1], bounds[i]]; the last, above every bound. */
  counts: number[];
}

export type ReceiverMode = 'ok' | 'hang' | 'fail';

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  spans: ReceivedSpan[];
  points: ReceivedPoint[];
  /** Export requests received (traces and metrics), and their content types. */
  requests: Array<{ path: string; contentType: string; headers: Record<string, string | string[] | undefined> }>;
  mode: ReceiverMode;
  /** Resolves once `n` spans arrived (rejects after `ms`). */
  waitForSpans(n: number, ms?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

const SPAN_KIND: Record<string, number> = { SPAN_KIND_INTERNAL: 1, SPAN_KIND_SERVER: 2, SPAN_KIND_CLIENT: 3, SPAN_KIND_PRODUCER: 4, SPAN_KIND_CONSUMER: 5 };

/** Starts a receiver on 127.0.0.1 (ephemeral port). */
export async function startReceiver(mode: ReceiverMode = 'ok'): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const hung = new Set<import('node:http').ServerResponse>();
  let waiters: Array<() => void> = [];
  const r: OtlpReceiver = {
    endpoint: '',
    spans,
    points,
    requests,
    mode,
    async waitForSpans(n, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (spans.length < n) {
        if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${n} spans, got ${spans.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return spans;
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ path: req.url ?? '', contentType, headers: req.headers });
      if (r.mode === 'hang') {
        hung.add(res);
        return;
      }
      if (r.mode === 'fail') {
        res.writeHead(503).end();
        return;
      }
      const body = Buffer.concat(chunks);
      const json = contentType.includes('json');
      if (req.url === '/v1/traces') {
        const msg = json
          ? JSON.parse(body.toString('utf8'))
          : v1.trace.v1.ExportTraceServiceRequest.toObject(v1.trace.v1.ExportTraceServiceRequest.decode(body), OBJ);
        for (const s of flattenSpans(msg, json)) spans.push(s);
        const w = waiters;
        waiters = [];
        for (const f of w) f();
      } else if (req.url === '/v1/metrics') {
        const msg = json
          ? JSON.parse(body.toString('utf8'))
          : v1.metrics.v1.ExportMetricsServiceRequest.toObject(v1.metrics.v1.ExportMetricsServiceRequest.decode(body), OBJ);
        for (const p of flattenPoints(msg)) points.push(p);
      }
      res.writeHead(200, { 'content-type': contentType || 'application/x-protobuf' });
      res.end(json ? '{}' : Buffer.alloc(0));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return r;
}

/** protobufjs toObject options: 64-bit integers as strings, bytes as Buffers, enums by name, only the fields set. */
const OBJ = { longs: String, enums: String, bytes: Buffer, arrays: true };

type Any = any;

function hex(v: Any, json: boolean): string {
  if (v === undefined || v === null) return '';
  // OTLP JSON carries ids as hex strings; protobuf as bytes
  return json ? String(v) : Buffer.from(v).toString('hex');
}

function ms(nanos: Any): number {
  return Number(BigInt(nanos ?? 0) / 1000n) / 1000;
}

/** An OTLP AnyValue as a JS value (protobufjs objects and OTLP JSON both name the one field set). */
export function anyValue(v: Any): unknown {
  if (v === undefined || v === null) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(anyValue);
  if ('kvlistValue' in v) return attrs(v.kvlistValue.values);
  return undefined;
}

function attrs(list: Any[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

function flattenSpans(msg: Any, json: boolean): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of msg.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hex(s.traceId, json),
          spanId: hex(s.spanId, json),
          parentSpanId: hex(s.parentSpanId, json),
          name: s.name,
          kind: typeof s.kind === 'number' ? s.kind : (SPAN_KIND[s.kind] ?? 0),
          startMs: ms(s.startTimeUnixNano),
          endMs: ms(s.endTimeUnixNano),
          attributes: attrs(s.attributes),
          events: (s.events ?? []).map((e: Any) => ({ name: e.name, timeMs: ms(e.timeUnixNano), attributes: attrs(e.attributes) })),
          status: typeof s.status?.code === 'number' ? s.status.code : s.status?.code === 'STATUS_CODE_ERROR' ? 2 : s.status?.code === 'STATUS_CODE_OK' ? 1 : 0,
          statusMessage: s.status?.message ?? '',
          resource,
          scope: ss.scope?.name ?? '',
        });
      }
    }
  }
  return out;
}

function flattenPoints(msg: Any): ReceivedPoint[] {
  const out: ReceivedPoint[] = [];
  for (const rm of msg.resourceMetrics ?? [])
    for (const sm of rm.scopeMetrics ?? [])
      for (const m of sm.metrics ?? [])
        for (const p of m.histogram?.dataPoints ?? [])
          out.push({
            metric: m.name,
            unit: m.unit,
            attributes: attrs(p.attributes),
            count: Number(p.count),
            sum: Number(p.sum),
            bounds: p.explicitBounds ?? [],
            counts: (p.bucketCounts ?? []).map(Number),
          });
  return out;
}
