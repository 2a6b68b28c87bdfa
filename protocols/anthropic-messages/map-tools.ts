/**
 * OpenAI `tools`, `tool_choice`, `parallel_tool_calls` → Messages `tools`, `tool_choice`.
 * @see Anthropic API: Messages (tools, tool_choice); Anthropic docs: How to implement tool use › Controlling Claude's output
 */
import { badRequest, type ChatRequest } from 'gw/plugin';
import type { MessagesRequest, MessagesTool } from './types.ts';

/**
 * Map tool declarations and the tool choice. JSON Schemas are kept intact but for a
 * top-level `$schema`, which the Messages API does not need. `strict` is dropped with a
 * warning: Anthropic's `strict` is refused by models without structured outputs, and the
 * tool works without it.
 * @see Anthropic API: Messages
 */
export function mapTools(
  req: Pick<ChatRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls'>,
  warnings: string[],
): { tools?: MessagesTool[]; tool_choice?: NonNullable<MessagesRequest['tool_choice']> } {
  const declared = req.tools ?? [];
  if (!Array.isArray(declared)) throw badRequest('tools must be an array', 'tools');
  if (declared.length === 0) {
    if (req.tool_choice !== undefined && req.tool_choice !== null) warnings.push('tool_choice dropped: no tools were given');
    return {};
  }

  let strictWarned = false;
  const tools = declared.map((tool, i): MessagesTool => {
    if (tool.type !== 'function') throw badRequest(`tools[${i}].type: only function tools are supported by anthropic models`, `tools[${i}].type`);
    if (typeof tool.function?.name !== 'string') throw badRequest(`tools[${i}].function.name is required`, `tools[${i}].function.name`);
    const fn = tool.function;
    if (fn.strict === true && !strictWarned) {
      strictWarned = true;
      warnings.push('tools[].function.strict dropped: not every anthropic model accepts strict tools');
    }
    const out: MessagesTool = { name: fn.name, input_schema: inputSchema(fn.parameters) };
    if (fn.description !== undefined && fn.description !== null) out.description = fn.description;
    if (tool.cache_control !== undefined) out.cache_control = tool.cache_control;
    return out;
  });

  const disableParallel = req.parallel_tool_calls === false;
  const choice = req.tool_choice;
  let tool_choice: NonNullable<MessagesRequest['tool_choice']> | undefined;
  if (choice === undefined || choice === null || choice === 'auto') tool_choice = disableParallel ? { type: 'auto' } : undefined;
  else if (choice === 'required') tool_choice = { type: 'any' };
  else if (choice === 'none') tool_choice = { type: 'none' };
  else if (typeof choice === 'object' && choice.type === 'function' && typeof choice.function?.name === 'string')
    tool_choice = { type: 'tool', name: choice.function.name };
  else throw badRequest("tool_choice must be 'auto', 'required', 'none' or {type:'function', function:{name}}", 'tool_choice');

  // ToolChoiceNone has no disable_parallel_tool_use: with no tool use there is nothing to serialize.
  if (tool_choice && disableParallel && tool_choice.type !== 'none') tool_choice.disable_parallel_tool_use = true;
  return tool_choice ? { tools, tool_choice } : { tools };
}

/** Drop a top-level `$schema` only; the rest of the schema is the client's contract. */
export function stripSchemaDialect(schema: Record<string, unknown>): Record<string, unknown> {
  if (!('$schema' in schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** The Messages API requires `input_schema`; a parameterless OpenAI function means an empty object. */
function inputSchema(parameters: Record<string, unknown> | undefined): Record<string, unknown> {
  if (parameters === undefined || parameters === null) return { type: 'object', properties: {} };
  return stripSchemaDialect(parameters);
}
