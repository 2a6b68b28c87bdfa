/**
 * Gemini `tools` / `toolConfig` → common-format `tools` / `tool_choice`.
 * @see Gemini API reference: Tool, FunctionDeclaration, FunctionCallingConfig
 */
import { type ChatTool, type ToolChoice, isObject } from 'gw/plugin';
import { quoted, type Warnings } from 'gw/plugin/format';
import { failField } from '../../core/error-codes.ts';
import { googleSchemaToJsonSchema, normalizeJsonSchema } from './convert-schema.ts';

/**
 * Every `functionDeclarations[]` entry of every Tool → one function tool; built-in tools run
 * inside Google and are dropped with a warning (the README's table has the rules).
 * @throws GatewayError 400 naming the field for a bad shape.
 */
export function convertTools(tools: unknown, w: Warnings): ChatTool[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) failField('tools', 'must be an array of Tool objects');
  const out: ChatTool[] = [];
  tools.forEach((tool, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) failField(at, 'must be a Tool object');
    for (const [key, value] of Object.entries(tool)) {
      if (key !== 'functionDeclarations') {
        if (value !== undefined && value !== null) w.add(`built-in tool ${key} dropped: it runs only on Gemini`, `${at}.${key}`);
        continue;
      }
      if (!Array.isArray(value)) failField(`${at}.functionDeclarations`, 'must be an array');
      for (const [j, decl] of value.entries()) out.push(declaration(decl, `${at}.functionDeclarations[${j}]`, w));
    }
  });
  return out;
}

function declaration(decl: unknown, at: string, w: Warnings): ChatTool {
  if (!isObject(decl)) failField(at, 'must be a FunctionDeclaration object');
  if (typeof decl.name !== 'string' || decl.name === '') failField(`${at}.name`, 'name must be a non-empty string');
  const fn: ChatTool['function'] = { name: decl.name };
  if (decl.description !== undefined) {
    if (typeof decl.description !== 'string') failField(`${at}.description`, 'description must be a string');
    fn.description = decl.description;
  }
  if (decl.parametersJsonSchema !== undefined && decl.parametersJsonSchema !== null) {
    fn.parameters = normalizeJsonSchema(decl.parametersJsonSchema, `${at}.parametersJsonSchema`);
    if (decl.parameters !== undefined) w.add('parameters ignored: parametersJsonSchema given too', `${at}.parameters`);
  } else if (decl.parameters !== undefined && decl.parameters !== null) {
    fn.parameters = googleSchemaToJsonSchema(decl.parameters, `${at}.parameters`);
  }
  for (const key of ['behavior', 'response', 'responseJsonSchema']) {
    if (decl[key] !== undefined) w.add(`functionDeclarations ${key} dropped: no common-format equivalent`, `${at}.${key}`);
  }
  return { type: 'function', function: fn };
}

/**
 * `toolConfig.functionCallingConfig` → `tool_choice`, per the README's table; `allowedFunctionNames`
 * narrow `tools`. No tools → dropped (common-format upstreams reject `tool_choice` without tools).
 * @returns the tool choice and the tools to send (possibly narrowed).
 * @throws GatewayError 400 naming the field for an unknown mode or an allowed name with no declaration.
 */
export function convertToolConfig(toolConfig: unknown, tools: ChatTool[], w: Warnings): { toolChoice: ToolChoice | undefined; tools: ChatTool[] } {
  if (toolConfig === undefined || toolConfig === null) return { toolChoice: undefined, tools };
  if (!isObject(toolConfig)) failField('toolConfig', 'must be an object');
  for (const key of Object.keys(toolConfig)) {
    if (key !== 'functionCallingConfig') w.add(`toolConfig.${key} dropped: no common-format equivalent`, `toolConfig.${key}`);
  }
  const fcc = toolConfig.functionCallingConfig;
  if (fcc === undefined || fcc === null) return { toolChoice: undefined, tools };
  if (!isObject(fcc)) failField('toolConfig.functionCallingConfig', 'must be an object');
  const mode = fcc.mode ?? 'AUTO';
  const allowed = fcc.allowedFunctionNames;
  if (allowed !== undefined && (!Array.isArray(allowed) || !allowed.every((n) => typeof n === 'string'))) {
    failField('toolConfig.functionCallingConfig.allowedFunctionNames', 'must be an array of strings');
  }
  if (tools.length === 0) {
    w.add('toolConfig dropped: no function declarations to choose from', 'toolConfig');
    return { toolChoice: undefined, tools };
  }
  switch (mode) {
    case 'AUTO':
    case 'MODE_UNSPECIFIED':
      if (allowed !== undefined && allowed.length > 0)
        w.add('allowedFunctionNames ignored: Gemini honours it only with mode ANY or VALIDATED', 'toolConfig.functionCallingConfig.allowedFunctionNames');
      return { toolChoice: 'auto', tools };
    case 'NONE':
      return { toolChoice: 'none', tools };
    case 'VALIDATED':
      w.add('mode VALIDATED sent as auto: no common-format equivalent of validated calls', 'toolConfig.functionCallingConfig.mode');
      return { toolChoice: 'auto', tools: narrow(tools, allowed) };
    case 'ANY': {
      if (allowed === undefined || allowed.length === 0) return { toolChoice: 'required', tools };
      const narrowed = narrow(tools, allowed);
      if (allowed.length === 1) return { toolChoice: { type: 'function', function: { name: allowed[0]! } }, tools };
      return { toolChoice: 'required', tools: narrowed };
    }
    default:
      failField('toolConfig.functionCallingConfig.mode', 'mode is not one of AUTO, ANY, NONE, VALIDATED', quoted(mode));
  }
}

function narrow(tools: ChatTool[], allowed: string[] | undefined): ChatTool[] {
  if (allowed === undefined || allowed.length === 0) return tools;
  const names = new Set(tools.map((t) => t.function.name));
  allowed.forEach((n, k) => {
    if (!names.has(n)) failField(`toolConfig.functionCallingConfig.allowedFunctionNames[${k}]`, 'names no function declaration', quoted(n));
  });
  const keep = new Set(allowed);
  return tools.filter((t) => keep.has(t.function.name));
}
