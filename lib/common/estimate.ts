/**
 * Token estimates where no upstream counts (count-tokens, a stream that ended early: docs/design.md
 * "usage fine print"): about 4 UTF-8 bytes a token, always labelled an estimate. Counting a stream
 * parses nothing ({@link jsonFieldBytes}).
 */
import type { ChatCompletionChunk, Usage } from './chat.ts';

/** Estimated tokens of a text (UTF-8 bytes / 4, rounded up). */
export function estimateTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** Tokens counted for one attachment (an image or file sent inline: a data URL or base64 `data`), whatever its size. */
export const ATTACHMENT_TOKENS = 1000;
/** A `data` string longer than this is taken for inline base64 (Anthropic `source.data`, Gemini `inlineData.data`). */
const INLINE_DATA_CHARS = 1024;

/**
 * Estimated prompt tokens of a request: every string in `value`, 3 per message-like object,
 * {@link ATTACHMENT_TOKENS} per inline attachment (not its bytes); 64 levels deep at most.
 */
export function estimateTokens(value: unknown): number {
  let bytes = 0;
  let objects = 0;
  let attachments = 0;
  const walk = (v: unknown, key: string, depth: number): void => {
    if (depth > 64) return;
    if (typeof v === 'string') {
      if (v.startsWith('data:') || (v.length > INLINE_DATA_CHARS && (key === 'data' || key === 'file_data'))) attachments++;
      else bytes += Buffer.byteLength(v, 'utf8');
    } else if (Array.isArray(v)) for (const x of v) walk(x, key, depth + 1);
    else if (typeof v === 'object' && v !== null) {
      objects++;
      for (const [k, x] of Object.entries(v)) {
        bytes += k.length;
        walk(x, k, depth + 1);
      }
    }
  };
  walk(value, '', 0);
  return Math.ceil(bytes / 4) + 3 * objects + ATTACHMENT_TOKENS * attachments;
}

/**
 * Estimated UTF-8 bytes of every value of field `needle` (`'"text":'`) in a JSON text, without
 * parsing: a string the characters it stands for, an object or array its raw length.
 */
export function jsonFieldBytes(data: string, needle: string): number {
  let total = 0;
  let at = data.indexOf(needle);
  while (at >= 0) {
    let i = at + needle.length;
    let c = data.charCodeAt(i);
    while (c === 32) c = data.charCodeAt(++i);
    if (c === 34) i = stringEnd(data, i + 1);
    else if (c === 123 || c === 91) {
      const start = i;
      i = containerEnd(data, i);
      total += i - start;
    }
    total += scanned;
    scanned = 0;
    at = data.indexOf(needle, i);
  }
  return total;
}

/** Bytes counted by the last {@link stringEnd} (module state: no tuple allocated per value). */
let scanned = 0;

/** Index after the closing quote of the JSON string whose content starts at `i`; its byte estimate in `scanned`. */
function stringEnd(s: string, i: number): number {
  let bytes = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      i++;
      break;
    }
    if (c === 92) {
      if (s.charCodeAt(i + 1) === 117) {
        const u = hex4(s, i + 2);
        bytes += u < 0x80 ? 1 : u < 0x800 || (u >= 0xd800 && u <= 0xdfff) ? 2 : 3;
        i += 6;
      } else {
        bytes++;
        i += 2;
      }
      continue;
    }
    // a surrogate half counts 2: a pair is 4 bytes in UTF-8
    bytes += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3;
    i++;
  }
  scanned = bytes;
  return i;
}

/** Index after the object or array starting at `i` (strings inside skipped). */
function containerEnd(s: string, i: number): number {
  let depth = 0;
  const n = s.length;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(s, i + 1) - 1;
      scanned = 0;
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth === 0) return i + 1;
    }
  }
  return n;
}

function hex4(s: string, i: number): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const c = s.charCodeAt(i + k);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (d < 0) return 0x80;
    v = v * 16 + d;
  }
  return v;
}

/** Parses a usage report kept unparsed (a passthrough's raw event) into common usage; undefined when it holds none. */
export type UsageReader = (raw: string) => Usage | undefined;

/**
 * What a stream produced so far, fed as frames pass ({@link chunk}, {@link text}, {@link field});
 * {@link reported} or {@link deferUsage} when the upstream reports usage. Read only on an early end.
 */
export class StreamProgress {
  /** Estimated UTF-8 bytes of output since the upstream's last usage report. */
  bytes = 0;
  #raw: string | undefined = undefined;
  #read: UsageReader | undefined = undefined;

  /** Adds a string's UTF-8 bytes (nothing for a non-string). */
  text(s: unknown): void {
    if (typeof s === 'string' && s.length > 0) this.bytes += Buffer.byteLength(s, 'utf8');
  }

  /** Adds the bytes of field `needle` (`'"text":'`) in a raw JSON event; see {@link jsonFieldBytes}. */
  field(data: string, needle: string): void {
    this.bytes += jsonFieldBytes(data, needle);
  }

  /** Adds a common-format chunk's output (content, reasoning, refusal, tool names and arguments); a chunk with usage is a report. */
  chunk(c: ChatCompletionChunk): void {
    const choices = c.choices;
    if (Array.isArray(choices)) {
      for (let i = 0; i < choices.length; i++) {
        const d = choices[i]?.delta;
        if (typeof d !== 'object' || d === null) continue;
        this.text(d.content);
        this.text(d.reasoning_content);
        this.text(d.refusal);
        const calls = d.tool_calls;
        if (Array.isArray(calls)) {
          for (let k = 0; k < calls.length; k++) {
            const f = calls[k]?.function;
            if (f) {
              this.text(f.name);
              this.text(f.arguments);
            }
          }
        }
      }
    }
    if (c.usage) this.reported();
  }

  /** The upstream reported usage covering everything so far (running or final). */
  reported(): void {
    this.bytes = 0;
    this.#raw = undefined;
  }

  /** The upstream reported usage in `raw`, kept unparsed; `read` parses it if the stream ends early. */
  deferUsage(raw: string, read: UsageReader): void {
    this.bytes = 0;
    this.#raw = raw;
    this.#read = read;
  }

  /** The deferred report, parsed (undefined when none, or when it holds no counts). */
  deferredUsage(): Usage | undefined {
    if (this.#raw === undefined || !this.#read) return undefined;
    try {
      return this.#read(this.#raw);
    } catch {
      return undefined;
    }
  }
}

/** A charge for a stream that ended early, and whether any of it is gw's estimate. */
export interface PartialCharge {
  usage: Usage;
  estimated: boolean;
}

/** An early-ended stream's charge: `reported` plus `outputBytes` after it, `promptTokens()` when no prompt was reported. */
export function partialCharge(reported: Usage | undefined, outputBytes: number, promptTokens: () => number): PartialCharge {
  // a prompt is never 0 tokens: a 0 is an upstream that did not count it (yet)
  const hasPrompt = typeof reported?.prompt_tokens === 'number' && Number.isFinite(reported.prompt_tokens) && reported.prompt_tokens > 0;
  const prompt = hasPrompt ? reported!.prompt_tokens : promptTokens();
  const before =
    typeof reported?.completion_tokens === 'number' && Number.isFinite(reported.completion_tokens) && reported.completion_tokens > 0
      ? reported.completion_tokens
      : 0;
  const completion = before + Math.ceil(outputBytes / 4);
  const usage: Usage = { ...reported, prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  return { usage, estimated: !hasPrompt || outputBytes > 0 };
}
