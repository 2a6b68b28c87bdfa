/**
 * Common-format `tools` / `tool_choice` → Gemini `tools` / `toolConfig`.
 * @see Gemini API docs: Function calling; Gemini API reference: FunctionCallingConfig
 */
import { badRequest, type ChatRequest } from 'gw/plugin';
import { quoted } from 'gw/plugin/format';
import type { FunctionDeclaration, Tool, ToolConfig } from './types.ts';

/**
 * The schema without its top-level `$schema`: Gemini takes full JSON Schema in
 * `parametersJsonSchema`/`responseJsonSchema` but not every dialect URI. Everything
 * else is kept intact (docs/design.md "Behaviour details": tool schemas survive translation).
 */
export function withoutSchemaKeyword(schema: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(schema, '$schema')) return schema;
  const { $schema: _dropped, ...rest } = schema;
  return rest;
}

/**
 * All function tools as one `tools[0].functionDeclarations` list, parameters as
 * `parametersJsonSchema`. Non-function tools → 400 (silently losing a tool changes behaviour).
 */
export function convertTools(tools: ChatRequest['tools'], warnings: string[]): Tool[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw badRequest('tools must be an array', 'tools');
  if (tools.length === 0) return undefined;
  const declarations = tools.map((tool, i): FunctionDeclaration => {
    const at = `tools[${i}]`;
    if (tool?.type !== 'function') throw badRequest(`${at}.type is not supported for Gemini (only "function")`, `${at}.type`, quoted(tool?.type));
    const fn = tool.function;
    if (typeof fn?.name !== 'string' || fn.name === '') throw badRequest(`${at}.function.name must be a non-empty string`, `${at}.function.name`);
    const decl: FunctionDeclaration = { name: fn.name };
    if (typeof fn.description === 'string') decl.description = fn.description;
    if (fn.parameters !== undefined && fn.parameters !== null) {
      if (typeof fn.parameters !== 'object' || Array.isArray(fn.parameters))
        throw badRequest(`${at}.function.parameters must be a JSON Schema object`, `${at}.function.parameters`);
      decl.parametersJsonSchema = withoutSchemaKeyword(fn.parameters);
    }
    if (fn.strict === true) warnings.push(`${at}.function.strict dropped: Gemini has no strict mode for function calls`);
    if (tool.cache_control !== undefined) warnings.push(`${at}.cache_control dropped: Gemini caches by cachedContent resources, not per-tool markers`);
    return decl;
  });
  return [{ functionDeclarations: declarations }];
}

/**
 * `tool_choice` → `functionCallingConfig.mode`: auto→AUTO, required→ANY, none→NONE,
 * a named function → ANY restricted by `allowedFunctionNames`.
 */
export function convertToolChoice(choice: ChatRequest['tool_choice'] | null): ToolConfig | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (typeof choice === 'object' && choice.type === 'function' && typeof choice.function?.name === 'string') {
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  }
  throw badRequest('tool_choice must be "auto", "required", "none" or {type: "function", function: {name}}', 'tool_choice');
}
