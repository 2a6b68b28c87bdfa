/**
 * The bench's fast local upstream, run as its own process (`node bench/upstream-server.ts`):
 * answers canned OpenAI (chat and Responses), Anthropic and Gemini bodies and streams (bench/payloads.ts) with
 * as little work as it can, so the numbers measure gw. Prints `upstream listening on <port>`.
 *
 * Streams write one event per event-loop turn (`BENCH_CHUNK_GAP_MS` > 0: per timer tick) so
 * gw sees them as separate reads, as it would from a model producing tokens.
 * `BENCH_STREAM_CHUNKS=N` shortens the OpenAI chat streams to N writes (the headline's slow
 * upstream: 8 chunks 1000 ms apart).
 * GET /__stats answers the requests counted per route (a sanity check for the runner).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { buildPayloads, shortenOpenaiStream } from './payloads.ts';

const p = buildPayloads();
const gapMs = Number(process.env.BENCH_CHUNK_GAP_MS ?? 0);
const streamChunks = Number(process.env.BENCH_STREAM_CHUNKS ?? 0);
if (streamChunks > 0) {
  p.openaiSse = shortenOpenaiStream(p.openaiSse, streamChunks);
  p.openaiSseWithUsage = shortenOpenaiStream(p.openaiSseWithUsage, streamChunks);
}
const counts: Record<string, number> = {
  openai_json: 0,
  openai_sse: 0,
  anthropic_json: 0,
  anthropic_sse: 0,
  gemini_json: 0,
  gemini_sse: 0,
  responses_json: 0,
  responses_sse: 0,
  other: 0,
};
const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      s += d;
    });
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, body: string): void {
  res.writeHead(200, JSON_HEADERS);
  res.end(body);
}

function sse(res: ServerResponse, events: string[]): void {
  res.writeHead(200, SSE_HEADERS);
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    res.write(events[i]!);
    if (++i === events.length) res.end();
    else if (gapMs > 0) setTimeout(next, gapMs);
    else setImmediate(next);
  };
  next();
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '';
  if (req.method === 'GET') {
    if (url === '/__stats') return json(res, JSON.stringify(counts));
    if (url.endsWith('/models')) return json(res, '{"object":"list","data":[]}');
    counts.other!++;
    res.writeHead(404).end();
    return;
  }
  // gw's OTLP exports (the otel bench): drained, not decoded, not counted as calls. A collector's
  // CPU is not gw's, and this process shares the machine with gw: reading a 250 KB batch as
  // UTF-8 text cost CPU on the gw-with-otel side only.
  if (url === '/v1/traces' || url === '/v1/metrics') {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
    return;
  }
  const body = await readText(req);
  // the body is compact JSON from the bench or from gw: a substring test is enough
  const stream = body.includes('"stream":true');
  if (url.startsWith('/v1/chat/completions')) {
    if (!stream) {
      counts.openai_json!++;
      return json(res, p.openaiJson);
    }
    counts.openai_sse!++;
    return sse(res, body.includes('"include_usage":true') ? p.openaiSseWithUsage : p.openaiSse);
  }
  if (url.startsWith('/v1/responses')) {
    if (!stream) {
      counts.responses_json!++;
      return json(res, p.responsesJson);
    }
    counts.responses_sse!++;
    return sse(res, p.responsesSse);
  }
  if (url.startsWith('/v1/messages')) {
    if (!stream) {
      counts.anthropic_json!++;
      return json(res, p.anthropicJson);
    }
    counts.anthropic_sse!++;
    return sse(res, p.anthropicSse);
  }
  if (url.includes(':streamGenerateContent')) {
    counts.gemini_sse!++;
    return sse(res, p.geminiSse);
  }
  if (url.includes(':generateContent')) {
    counts.gemini_json!++;
    return json(res, p.geminiJson);
  }
  counts.other!++;
  res.writeHead(404, JSON_HEADERS).end('{"error":{"message":"no such route"}}');
}

const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
  handle(req, res).catch(() => res.destroy());
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`upstream listening on ${typeof a === 'object' && a ? a.port : 0}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
