/**
 * Trace and span ids: the SDK's `RandomIdGenerator` contract (random 16- and 8-byte ids as
 * lower-case hex, never all zeros: an all-zero draw gets its last bit set) at a fraction of its
 * CPU. Why: docs/benchmarks.md#otel-ids
 */
import type { IdGenerator } from '@opentelemetry/sdk-trace';

/** Char codes of the hex digits 0-9a-f. */
const HEX = new Uint8Array(16);
for (let i = 0; i < 16; i++) HEX[i] = i < 10 ? 48 + i : 87 + i;

/** A random unsigned 32-bit integer. */
function word(): number {
  return (Math.random() * 4294967296) >>> 0;
}

/** Eight hex digits of `a` then eight of `b`: one flat 16-character string. */
function hex64(a: number, b: number): string {
  const h = HEX;
  return String.fromCharCode(
    h[a >>> 28]!,
    h[(a >>> 24) & 15]!,
    h[(a >>> 20) & 15]!,
    h[(a >>> 16) & 15]!,
    h[(a >>> 12) & 15]!,
    h[(a >>> 8) & 15]!,
    h[(a >>> 4) & 15]!,
    h[a & 15]!,
    h[b >>> 28]!,
    h[(b >>> 24) & 15]!,
    h[(b >>> 20) & 15]!,
    h[(b >>> 16) & 15]!,
    h[(b >>> 12) & 15]!,
    h[(b >>> 8) & 15]!,
    h[(b >>> 4) & 15]!,
    h[b & 15]!,
  );
}

/** The ids of gw's spans (span.ts SpanFactory). */
export class HexIdGenerator implements IdGenerator {
  /** 32 lower-case hex digits, never all zeros. */
  generateTraceId(): string {
    const a = word();
    const b = word();
    const c = word();
    let d = word();
    if ((a | b | c | d) === 0) d = 1;
    return hex64(a, b) + hex64(c, d);
  }

  /** 16 lower-case hex digits, never all zeros. */
  generateSpanId(): string {
    const a = word();
    let b = word();
    if ((a | b) === 0) b = 1;
    return hex64(a, b);
  }
}
