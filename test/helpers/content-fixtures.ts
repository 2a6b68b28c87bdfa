/**
 * Every recorded request, answer and stream under test/fixtures/, by the protocol that reads
 * it, for the content-view tests (test/unit/content-read.test.ts, content-mask.test.ts).
 * The vendor folder names the protocol: openai, azure, dashscope and zhipu speak chat
 * completions; anthropic Messages; responses Responses; gemini the Gemini API. A file that
 * holds no content (errors, embeddings, model lists, usage docs) is listed in NOT_CONTENT
 * with why, so a new fixture is either read or named there.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContentReader } from '../../lib/content/view.ts';
import { messagesContent } from '../../protocols/anthropic-messages/content.ts';
import { geminiContent } from '../../protocols/gemini/content.ts';
import { chatContent } from '../../protocols/openai-chat/content.ts';
import { responsesContent } from '../../protocols/openai-responses/content.ts';

export type ProtocolId = 'openai-chat' | 'anthropic-messages' | 'openai-responses' | 'gemini';

export const READERS: Readonly<Record<ProtocolId, ContentReader>> = {
  'openai-chat': chatContent,
  'anthropic-messages': messagesContent,
  'openai-responses': responsesContent,
  gemini: geminiContent,
};

const VENDORS: Readonly<Record<string, ProtocolId>> = {
  openai: 'openai-chat',
  azure: 'openai-chat',
  dashscope: 'openai-chat',
  zhipu: 'openai-chat',
  anthropic: 'anthropic-messages',
  responses: 'openai-responses',
  gemini: 'gemini',
};

/** One stream event: its data text as sent, and parsed. */
export interface StreamEvent {
  data: string;
  value: Record<string, unknown>;
}

export type ContentCase =
  | { name: string; protocol: ProtocolId; kind: 'request'; body: Record<string, unknown> }
  | { name: string; protocol: ProtocolId; kind: 'answer'; body: Record<string, unknown> }
  | { name: string; protocol: ProtocolId; kind: 'stream'; events: StreamEvent[] };

/** Fixture files (relative to test/fixtures/) that hold no request, answer or stream, and why. */
export const NOT_CONTENT: ReadonlyArray<[RegExp, string]> = [
  [/PROVENANCE\.md$/, 'provenance notes'],
  [/^specs\//, 'OpenAPI documents'],
  [/^gw-plugin-/, 'plugin packages'],
  [/\/error\.[^/]*\.json$/, 'an error body'],
  [/embeddings-float-response\.json$/, 'an embeddings answer'],
  [/models\.list\.response\.json$/, 'a model list'],
  [/explicit-cache\.usage\.json$/, 'usage objects only'],
  [/^mcp\//, 'MCP test data (the conformance baseline)'],
];

const ROOT = fileURLToPath(new URL('../fixtures/', import.meta.url));

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else out.push(relative(ROOT, path));
  }
  return out.sort();
}

/** The events of SSE text: each event's `data` lines joined, `[DONE]` left out. */
export function sseEvents(text: string): StreamEvent[] {
  const out: StreamEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (data === '' || data === '[DONE]') continue;
    out.push({ data, value: JSON.parse(data) });
  }
  return out;
}

/** Every fixture holding content, read into cases, and the files that matched no rule (should be none). */
export function contentCases(): { cases: ContentCase[]; unread: string[] } {
  const cases: ContentCase[] = [];
  const unread: string[] = [];
  for (const file of files(ROOT)) {
    if (NOT_CONTENT.some(([pattern]) => pattern.test(file))) continue;
    const protocol = VENDORS[file.split('/')[0]!];
    const text = readFileSync(join(ROOT, file), 'utf8');
    if (protocol === undefined) unread.push(file);
    else if (file.endsWith('.sse')) cases.push({ name: file, protocol, kind: 'stream', events: sseEvents(text) });
    else if (file.endsWith('.chunks.txt'))
      cases.push({
        name: file,
        protocol,
        kind: 'stream',
        events: text
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((data) => ({ data, value: JSON.parse(data) })),
      });
    else if (file.endsWith('.transcript.json')) {
      const interactions = JSON.parse(text) as Array<{ request: { body: unknown }; response: { body: unknown } }>;
      interactions.forEach((interaction, i) => {
        if (isObject(interaction.request.body)) cases.push({ name: `${file}#${i} request`, protocol, kind: 'request', body: interaction.request.body });
        if (isObject(interaction.response.body)) cases.push({ name: `${file}#${i} answer`, protocol, kind: 'answer', body: interaction.response.body });
      });
    } else if (file.endsWith('.json')) {
      const value = JSON.parse(text) as Record<string, unknown>;
      // a captured request keeps its body beside how it was captured
      const request = file.endsWith('.request.json') || file.endsWith('-request.json');
      const body = request && isObject(value.body) && 'url' in value ? value.body : value;
      cases.push({ name: file, protocol, kind: request ? 'request' : 'answer', body });
    } else unread.push(file);
  }
  return { cases, unread };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
