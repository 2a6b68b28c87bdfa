/**
 * OpenAI chat `messages` → Messages `system` + `messages`.
 * @see Anthropic API: Messages (system, messages, content blocks); Anthropic docs: How to implement tool use (tool_result placement)
 */
import { badRequest, type ChatMessage, type ContentPart } from 'gw/plugin';
import { quoted } from 'gw/plugin/format';
import type { MessagesContentBlock, MessagesMessage } from './types.ts';

type SystemBlock = { type: 'text'; text: string; [k: string]: unknown };

export interface MessagesPrompt {
  /** Undefined when the conversation has no system/developer message. */
  system: string | SystemBlock[] | undefined;
  messages: MessagesMessage[];
}

const IMAGE_MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * Convert the chat history; consecutive turns of one role merge, since Messages wants the roles
 * to alternate and every result of one assistant turn in ONE user message.
 * @throws GatewayError 400 naming the field path for input that cannot be represented.
 * @see Anthropic API: Messages
 */
export function convertToMessagesPrompt(input: ChatMessage[], warnings: string[]): MessagesPrompt {
  const system: SystemBlock[] = [];
  const messages: MessagesMessage[] = [];
  /** Appends a turn, merged in place into a last message of the same role (this module's own arrays: linear however many merge). */
  const push = (role: 'user' | 'assistant', content: string | MessagesContentBlock[]): void => {
    const last = messages[messages.length - 1];
    if (last === undefined || last.role !== role) {
      messages.push({ role, content });
      return;
    }
    if (typeof last.content === 'string') last.content = asBlocks(last.content);
    const into = last.content as MessagesContentBlock[];
    if (typeof content === 'string') {
      if (content !== '') into.push({ type: 'text', text: content });
    } else for (let k = 0; k < content.length; k++) into.push(content[k]!);
  };
  const warned = new Set<string>();
  const warnOnce = (w: string) => {
    if (!warned.has(w)) {
      warned.add(w);
      warnings.push(w);
    }
  };

  input.forEach((msg, i) => {
    const path = `messages[${i}]`;
    if (msg.name !== undefined && msg.name !== null && msg.role !== 'tool') warnOnce('messages[].name dropped: the Messages API has no participant names');
    switch (msg.role) {
      case 'system':
      case 'developer':
        systemBlocks(msg, path, system);
        return;
      case 'user':
        push('user', userContent(msg.content, path, warnOnce));
        return;
      case 'assistant': {
        if (msg.reasoning_content)
          warnOnce('messages[].reasoning_content dropped: Anthropic needs the thinking signature to replay reasoning, and the chat format has none');
        const blocks = assistantBlocks(msg, path);
        if (blocks.length === 0) {
          warnings.push(`${path} dropped: an assistant message with no content and no tool_calls`);
          return;
        }
        push('assistant', blocks);
        return;
      }
      case 'tool':
        push('user', [toolResult(msg, path)]);
        return;
      default:
        throw badRequest(`${path}.role: not supported by anthropic models (use system, developer, user, assistant or tool)`, `${path}.role`, quoted(msg.role));
    }
  });

  return { system: systemValue(system), messages };
}

/** A plain string reads best upstream and in logs; blocks only when a part carries `cache_control`. */
function systemValue(blocks: SystemBlock[]): string | SystemBlock[] | undefined {
  if (blocks.length === 0) return undefined;
  if (blocks.some((b) => b.cache_control !== undefined)) return blocks;
  return blocks.map((b) => b.text).join('\n\n');
}

/** Appends the text blocks of a system or developer message to `into`. */
function systemBlocks(msg: ChatMessage, path: string, into: SystemBlock[]): void {
  const content = msg.content;
  if (typeof content === 'string') {
    if (content !== '') into.push({ type: 'text', text: content });
    return;
  }
  if (content === null || content === undefined) return;
  content.forEach((part, j) => {
    if (part.type !== 'text' || typeof part.text !== 'string') {
      throw badRequest(`${path}.content[${j}]: a ${msg.role} message may only hold text parts`, `${path}.content[${j}].type`);
    }
    if (part.text !== '') into.push(withCacheControl<SystemBlock>({ type: 'text', text: part.text }, part));
  });
}

function userContent(content: ChatMessage['content'], path: string, warnOnce: (w: string) => void): string | MessagesContentBlock[] {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) throw badRequest(`${path}.content is required for a user message`, `${path}.content`);
  const blocks: MessagesContentBlock[] = [];
  content.forEach((part, j) => {
    const block = userPart(part, `${path}.content[${j}]`, warnOnce);
    if (block) blocks.push(block);
  });
  return blocks;
}

function userPart(part: ContentPart, path: string, warnOnce: (w: string) => void): MessagesContentBlock | undefined {
  switch (part.type) {
    case 'text': {
      if (typeof part.text !== 'string') throw badRequest(`${path}.text must be a string`, `${path}.text`);
      // The Messages API rejects empty text blocks; an empty part carries nothing.
      return part.text === '' ? undefined : withCacheControl({ type: 'text', text: part.text }, part);
    }
    case 'image_url': {
      const image = part.image_url as { url?: unknown; detail?: unknown } | undefined;
      if (!image || typeof image.url !== 'string') throw badRequest(`${path}.image_url.url must be a string`, `${path}.image_url.url`);
      if (image.detail !== undefined && image.detail !== 'auto') warnOnce('image_url.detail dropped: anthropic has no image detail setting');
      return withCacheControl({ type: 'image', source: imageSource(image.url, `${path}.image_url.url`) }, part);
    }
    case 'file': {
      const file = part.file as { file_data?: unknown; file_id?: unknown } | undefined;
      const data = typeof file?.file_data === 'string' ? parseDataUri(file.file_data) : undefined;
      if (data?.mediaType !== 'application/pdf') {
        throw badRequest(
          `${path}.file: only inline PDF files (file_data as a data:application/pdf;base64 URI) are supported by anthropic models`,
          `${path}.file`,
        );
      }
      return withCacheControl({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: data.data } }, part);
    }
    default:
      throw badRequest(
        `${path}.type: content part type not supported by anthropic models (text, image_url and PDF file parts are)`,
        `${path}.type`,
        quoted(part.type),
      );
  }
}

function imageSource(url: string, path: string): { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } {
  if (url.startsWith('data:')) {
    const parsed = parseDataUri(url);
    if (!parsed) throw badRequest(`${path}: a data URI image must be base64-encoded (data:<type>;base64,<data>)`, path);
    const mediaType = parsed.mediaType === 'image/jpg' ? 'image/jpeg' : parsed.mediaType;
    if (!IMAGE_MEDIA_TYPES.has(mediaType))
      throw badRequest(`${path}: image type not supported by anthropic models (jpeg, png, gif, webp are)`, path, quoted(parsed.mediaType));
    return { type: 'base64', media_type: mediaType, data: parsed.data };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'url', url };
  throw badRequest(`${path}: an image must be an http(s) URL or a base64 data URI`, path);
}

function parseDataUri(uri: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+)(?:;[^;,=]+=[^;,]*)*;base64,(.*)$/s.exec(uri);
  return m ? { mediaType: m[1].toLowerCase(), data: m[2] } : undefined;
}

function assistantBlocks(msg: ChatMessage, path: string): MessagesContentBlock[] {
  const blocks: MessagesContentBlock[] = [];
  const content = msg.content;
  if (typeof content === 'string') {
    if (content !== '') blocks.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    content.forEach((part, j) => {
      // `refusal` parts are the model's own earlier words; keep them as text.
      const text = part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : undefined;
      if (typeof text !== 'string') throw badRequest(`${path}.content[${j}]: an assistant message may only hold text parts`, `${path}.content[${j}].type`);
      if (text !== '') blocks.push(withCacheControl({ type: 'text', text }, part));
    });
  }
  msg.tool_calls?.forEach((call, k) => {
    const callPath = `${path}.tool_calls[${k}]`;
    if (call.type !== undefined && call.type !== 'function')
      throw badRequest(`${callPath}.type: only function tool calls are supported by anthropic models`, `${callPath}.type`);
    if (typeof call.id !== 'string' || call.id === '') throw badRequest(`${callPath}.id is required`, `${callPath}.id`);
    if (typeof call.function?.name !== 'string') throw badRequest(`${callPath}.function.name is required`, `${callPath}.function.name`);
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(call.function.arguments, `${callPath}.function.arguments`) });
  });
  return blocks;
}

/** `tool_use.input` must be an object; an empty string is read as "no arguments", as several clients send it. */
function parseArguments(args: unknown, path: string): Record<string, unknown> {
  if (args !== null && typeof args === 'object' && !Array.isArray(args)) return args as Record<string, unknown>;
  if (args === undefined || args === null || (typeof args === 'string' && args.trim() === '')) return {};
  if (typeof args !== 'string') throw badRequest(`${path} must be a JSON string`, path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw badRequest(`${path} is not valid JSON`, path, quoted(args));
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest(`${path} must encode a JSON object`, path);
  return parsed as Record<string, unknown>;
}

function toolResult(msg: ChatMessage, path: string): MessagesContentBlock {
  if (typeof msg.tool_call_id !== 'string' || msg.tool_call_id === '')
    throw badRequest(`${path}.tool_call_id is required for a tool message`, `${path}.tool_call_id`);
  const content = msg.content;
  if (typeof content === 'string' || content === null || content === undefined) {
    return { type: 'tool_result', tool_use_id: msg.tool_call_id, content: content ?? '' };
  }
  const blocks = content
    .map((part, j): MessagesContentBlock => {
      if (part.type !== 'text' || typeof part.text !== 'string')
        throw badRequest(`${path}.content[${j}]: a tool message may only hold text parts`, `${path}.content[${j}].type`);
      return withCacheControl({ type: 'text', text: part.text }, part);
    })
    .filter((b) => b.text !== '');
  return { type: 'tool_result', tool_use_id: msg.tool_call_id, content: blocks };
}

function asBlocks(content: string | MessagesContentBlock[]): MessagesContentBlock[] {
  if (typeof content !== 'string') return content;
  return content === '' ? [] : [{ type: 'text', text: content }];
}

/** Clients that know Anthropic put `cache_control` on chat content parts (LiteLLM, OpenRouter convention): keep it. */
function withCacheControl<T extends { [k: string]: unknown }>(block: T, part: { [k: string]: unknown }): T {
  return part.cache_control === undefined ? block : { ...block, cache_control: part.cache_control };
}
