/**
 * gw/plugin/cassette: gw's record-and-replay file format and what reads and writes it — not a
 * vendor's wire protocol but gw's own, shared by the recorder extension, the replay provider
 * kind and the `gw cassette` / `gw replay` commands. docs/record-replay.md.
 *
 *   entry.ts       the entry (one upstream exchange per JSON line) and its schema
 *   capture.ts     an exchange as it happens → an entry (ExchangeSink)
 *   writer.ts      appending without blocking (bounded queue, crash-safe lines)
 *   reader.ts      a file or a folder of them; a cut last line ignored
 *   matcher.ts     exact and sequence matching, `ignore` paths, the nearest recording of a miss
 *   transport.ts   an undici Dispatcher answering from the cassette (and recording misses)
 *   canonical.ts, json-path.ts, route.ts, headers.ts, sse.ts, errors.ts
 */
export { type CaptureSettings, DEFAULT_MAX_BYTES, ExchangeCapture } from './capture.ts';
export { headerLists, NEVER_KEPT } from './headers.ts';
export { compilePath } from './json-path.ts';
export { Matcher } from './matcher.ts';
export { type CassetteLine, readCassette } from './reader.ts';
export { ReplayTransport } from './transport.ts';
export { CassetteWriter } from './writer.ts';
