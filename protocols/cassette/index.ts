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
export { bodyText, canonicalBody, canonicalJson, canonicalText, hashOf, parseKept } from './canonical.ts';
export { type CaptureSettings, DEFAULT_MAX_BYTES, ExchangeCapture, newEntryId } from './capture.ts';
export { CASSETTE_VERSION, type CassetteEntry, entrySchema, type RecordedError, type RecordedEvent, type RecordedGw, type RecordedResponse } from './entry.ts';
export { type MissParams, REPLAY_MISS } from './errors.ts';
export { HeaderAllowList, headerLists, NEVER_KEPT, REQUEST_HEADERS, RESPONSE_HEADERS } from './headers.ts';
export { compilePath, type Difference, firstDifference, IGNORED, type JsonPath, quote, removePath } from './json-path.ts';
export { conversationStart, type MatchMode, Matcher, type Miss } from './matcher.ts';
export { type Cassette, type CassetteLine, readCassette, readLines, type SkippedLine } from './reader.ts';
export { ROUTE_QUERY, routeOf } from './route.ts';
export { encodeEvent } from './sse.ts';
export { type ReplayRecording, type ReplaySettings, ReplayTransport } from './transport.ts';
export { CassetteWriter, DEFAULT_MAX_QUEUE_BYTES } from './writer.ts';
