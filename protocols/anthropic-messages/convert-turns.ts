/**
 * The turns of a Messages request → common-format messages, for {@link messagesToChatRequest}.
 * Images → `image_url` data URIs; documents → text or `file` parts; `tool_use` → `tool_calls`.
 * Each `tool_result` → a `tool` message before the rest of its user turn (the common format
 * wants them right after the calls); `is_error` prefixes `Error: ` (no error flag there, and
 * the model must learn the call failed). Pure; input with no common-format form is a 400.
 */
import { type ChatMessage, type ContentPart, type ToolCall, isObject } from 'gw/plugin';
import { quoted, type Warnings } from 'gw/plugin/format';
import { failField } from '../../core/error-codes.ts';
import { stringField } from '../../lib/common/fields.ts';

type Obj = Record<string, unknown>;

/** Appends the chat messages of one Messages turn to `out`. */
export function convertMessage(m: unknown, path: string, w: Warnings, out: ChatMessage[]): void {
  if (!isObject(m)) failField(path, 'message must be an object');
  switch (m.role) {
    case 'system':
      // Some clients put a system turn inside `messages` for non-Claude models: keep it in place.
      out.push({ role: 'system', content: systemText(m.content, `${path}.content`, w) });
      return;
    case 'user':
      userMessages(m.content, path, w, out);
      return;
    case 'assistant':
      out.push(assistantMessage(m.content, path, w));
      return;
    default:
      failField(`${path}.role`, 'role must be "user" or "assistant"');
  }
}

/** `system` (a string or text blocks, joined by a blank line) as one text. */
export function systemText(content: unknown, path: string, w: Warnings): string {
  if (typeof content === 'string') return content;
  return blocksOf(content, path)
    .map((b, j) => {
      const bp = `${path}[${j}]`;
      if (b.type !== 'text') failField(`${bp}.type`, 'system content blocks must be text blocks');
      noteBlockExtras(b, bp, w);
      return stringField(b, 'text', bp);
    })
    .join('\n\n');
}

/** Appends a user turn: one tool message per tool_result, then the user message with the rest. */
function userMessages(content: unknown, path: string, w: Warnings, out: ChatMessage[]): void {
  if (typeof content === 'string') {
    out.push({ role: 'user', content });
    return;
  }
  const before = out.length;
  const parts: ContentPart[] = [];
  blocksOf(content, `${path}.content`).forEach((b, j) => {
    const bp = `${path}.content[${j}]`;
    noteBlockExtras(b, bp, w);
    switch (b.type) {
      case 'text':
        parts.push({ type: 'text', text: stringField(b, 'text', bp) });
        break;
      case 'image':
        parts.push(imagePart(b, bp));
        break;
      case 'document':
        parts.push(documentPart(b, bp));
        break;
      case 'tool_result':
        out.push(toolMessage(b, bp, parts, w));
        break;
      default:
        if (!droppable(b.type)) failField(`${bp}.type`, 'content block type is not supported in a user message', quoted(b.type));
        w.add(`${b.type} blocks dropped: no common-format equivalent`, bp);
    }
  });
  if (parts.length > 0) out.push({ role: 'user', content: simplify(parts) });
  else if (out.length === before) out.push({ role: 'user', content: '' });
}

function assistantMessage(content: unknown, path: string, w: Warnings): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const parts: ContentPart[] = [];
  const calls: ToolCall[] = [];
  blocksOf(content, `${path}.content`).forEach((b, j) => {
    const bp = `${path}.content[${j}]`;
    noteBlockExtras(b, bp, w);
    switch (b.type) {
      case 'text':
        parts.push({ type: 'text', text: stringField(b, 'text', bp) });
        break;
      case 'tool_use': {
        const input = b.input === undefined ? {} : b.input;
        if (!isObject(input)) failField(`${bp}.input`, 'tool_use input must be an object');
        calls.push({
          id: stringField(b, 'id', bp),
          type: 'function',
          function: { name: stringField(b, 'name', bp), arguments: JSON.stringify(input) },
        });
        break;
      }
      default:
        if (!droppable(b.type)) failField(`${bp}.type`, 'content block type is not supported in an assistant message', quoted(b.type));
        w.add(`${b.type} blocks dropped: no common-format equivalent`, bp);
    }
  });
  const msg: ChatMessage = { role: 'assistant', content: parts.length > 0 ? simplify(parts) : calls.length > 0 ? null : '' };
  if (calls.length > 0) msg.tool_calls = calls;
  return msg;
}

/** `parts` receives the images of the result, which a tool message cannot carry. */
function toolMessage(b: Obj, bp: string, parts: ContentPart[], w: Warnings): ChatMessage {
  const id = stringField(b, 'tool_use_id', bp);
  let text: string;
  if (b.content === undefined || b.content === null) {
    text = '';
  } else if (typeof b.content === 'string') {
    text = b.content;
  } else {
    const texts: string[] = [];
    blocksOf(b.content, `${bp}.content`).forEach((inner, k) => {
      const ip = `${bp}.content[${k}]`;
      noteBlockExtras(inner, ip, w);
      if (inner.type === 'text') {
        texts.push(stringField(inner, 'text', ip));
      } else if (inner.type === 'image') {
        parts.push(imagePart(inner, ip));
        w.add('tool_result images moved to the following user message', ip);
      } else {
        w.add(`${inner.type} blocks inside tool_result dropped: tool messages carry text only`, ip);
      }
    });
    text = texts.join('\n');
  }
  if (b.is_error === true) text = text === '' ? 'Error' : `Error: ${text}`;
  return { role: 'tool', tool_call_id: id, content: text };
}

function imagePart(b: Obj, bp: string): ContentPart {
  const src = b.source;
  if (!isObject(src)) failField(`${bp}.source`, 'image source must be an object');
  if (src.type === 'base64') {
    const mediaType = stringField(src, 'media_type', `${bp}.source`);
    const data = stringField(src, 'data', `${bp}.source`);
    return { type: 'image_url', image_url: { url: `data:${mediaType};base64,${data}` } };
  }
  if (src.type === 'url') return { type: 'image_url', image_url: { url: stringField(src, 'url', `${bp}.source`) } };
  failField(`${bp}.source.type`, 'image source type must be "base64" or "url"');
}

function documentPart(b: Obj, bp: string): ContentPart {
  const src = b.source;
  if (!isObject(src)) failField(`${bp}.source`, 'document source must be an object');
  if (src.type === 'text') return { type: 'text', text: stringField(src, 'data', `${bp}.source`) };
  if (src.type === 'base64') {
    const mediaType = stringField(src, 'media_type', `${bp}.source`);
    const data = stringField(src, 'data', `${bp}.source`);
    const filename = typeof b.title === 'string' && b.title !== '' ? b.title : 'document.pdf';
    return { type: 'file', file: { filename, file_data: `data:${mediaType};base64,${data}` } };
  }
  failField(`${bp}.source.type`, 'document source type must be "text" or "base64"');
}

/** Block types a Messages history may hold that have no common-format form and carry nothing the model needs. */
function droppable(type: string): boolean {
  return (
    type === 'thinking' ||
    type === 'redacted_thinking' ||
    type === 'server_tool_use' ||
    type === 'mcp_tool_use' ||
    type === 'container_upload' ||
    (type.endsWith('_tool_result') && type !== 'tool_result')
  );
}

function noteBlockExtras(b: Obj, bp: string, w: Warnings): void {
  if (b.cache_control !== undefined) w.add('cache_control dropped: no common-format equivalent', `${bp}.cache_control`);
}

function simplify(parts: ContentPart[]): string | ContentPart[] {
  const [only] = parts;
  return parts.length === 1 && only.type === 'text' && typeof only.text === 'string' ? only.text : parts;
}

function blocksOf(content: unknown, path: string): Array<Obj & { type: string }> {
  if (!Array.isArray(content)) failField(path, 'content must be a string or an array of content blocks');
  return content.map((b, j) => {
    if (!isObject(b)) failField(`${path}[${j}]`, 'content block must be an object');
    if (typeof b.type !== 'string') failField(`${path}[${j}].type`, 'content block type must be a string');
    return b as Obj & { type: string };
  });
}
