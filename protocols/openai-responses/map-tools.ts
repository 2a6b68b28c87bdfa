/**
 * Responses `tools` / `tool_choice` → common-format function tools, for models reached by
 * translation. `namespace` tools (Codex's `multi_agent_v1`) flatten to `<namespace>__<name>`
 * through {@link ToolNames}; every other non-function type is a built-in the upstream cannot
 * run, dropped and listed for the log and `x-gw-dropped-tools`. Follows OpenAI's API
 * reference, "Responses: Create a model response › tools", and the "Function calling" guide.
 */
import { createHash } from 'node:crypto';
import { type ChatRequest, type ChatTool, type ToolChoice, isObject } from 'gw/plugin';
import { quoted, type Warnings } from 'gw/plugin/format';
import { failField } from '../../core/error-codes.ts';
import { stringField } from '../../lib/common/fields.ts';

type Obj = Record<string, unknown>;

/** Separator between a namespace and a function name in a flattened name (MCP clients use the same). */
const SEP = '__';
/** OpenAI's chat limit for a function name; longer flattened names are shortened with a hash. */
const MAX_NAME = 64;

/**
 * The reversible mapping between namespaced functions and the flat names the upstream sees.
 * Names outside a namespace map to themselves. Built per request from its `tools`.
 */
export class ToolNames {
  readonly #flat = new Map<string, string>();
  readonly #restore = new Map<string, { namespace: string; name: string }>();

  /** The flat name for `{namespace, name}`; `name` itself without a namespace or for an unknown pair. */
  flatten(namespace: string | null | undefined, name: string): string {
    if (!namespace) return name;
    return this.#flat.get(`${namespace}\u0000${name}`) ?? `${namespace}${SEP}${name}`;
  }

  /** `{name, namespace?}` for a flat name the upstream called; unknown names are returned as they are. */
  restore(flat: string): { name: string; namespace?: string } {
    return this.#restore.get(flat) ?? { name: flat };
  }

  /** True when at least one namespaced function was flattened (restoring is then needed). */
  get used(): boolean {
    return this.#restore.size > 0;
  }

  /** Registers a namespaced function; returns its flat name. */
  add(namespace: string, name: string): string {
    let flat = `${namespace}${SEP}${name}`;
    if (flat.length > MAX_NAME) {
      const hash = createHash('sha256').update(flat).digest('hex').slice(0, 8);
      flat = `${flat.slice(0, MAX_NAME - 9)}_${hash}`;
    }
    this.#flat.set(`${namespace}\u0000${name}`, flat);
    this.#restore.set(flat, { namespace, name });
    return flat;
  }
}

/** The translated tools and what had to be left out. */
export interface MappedTools {
  tools: ChatTool[];
  names: ToolNames;
  /** Built-in (and custom) tools dropped, as `type` or `type:name` (e.g. `web_search`, `custom:apply_patch`, `mcp:deepwiki`). */
  dropped: string[];
}

/**
 * Translates `tools`.
 * @throws GatewayError 400 naming `tools[i]…` for a malformed tool, or a flat name used twice
 *   (the upstream's call could not be routed back).
 */
export function mapTools(tools: unknown, w: Warnings): MappedTools {
  const out: MappedTools = { tools: [], names: new ToolNames(), dropped: [] };
  if (tools === undefined || tools === null) return out;
  if (!Array.isArray(tools)) failField('tools', 'tools must be an array');
  const seen = new Map<string, string>();
  const claim = (name: string, at: string): void => {
    const other = seen.get(name);
    if (other !== undefined) failField(at, `tool name is used twice (also at ${other})`, quoted(name));
    seen.set(name, at);
  };
  tools.forEach((t, i) => {
    const tp = `tools[${i}]`;
    if (!isObject(t)) failField(tp, 'tool must be an object');
    if (typeof t.type !== 'string') failField(`${tp}.type`, 'type must be a string');
    if (t.type === 'function') {
      const tool = functionTool(t, tp, w);
      claim(tool.function.name, tp);
      out.tools.push(tool);
    } else if (t.type === 'namespace') {
      const ns = stringField(t, 'name', tp);
      if (ns === '') failField(`${tp}.name`, 'name must not be empty');
      if (!Array.isArray(t.tools)) failField(`${tp}.tools`, 'tools must be an array');
      t.tools.forEach((inner, j) => {
        const ip = `${tp}.tools[${j}]`;
        if (!isObject(inner)) failField(ip, 'tool must be an object');
        if (inner.type !== 'function') {
          out.dropped.push(label(inner, ns));
          return;
        }
        const tool = functionTool(inner, ip, w);
        tool.function.name = out.names.add(ns, tool.function.name);
        claim(tool.function.name, ip);
        out.tools.push(tool);
      });
    } else {
      out.dropped.push(label(t));
    }
  });
  return out;
}

function functionTool(t: Obj, tp: string, w: Warnings): ChatTool {
  const name = stringField(t, 'name', tp);
  if (name === '') failField(`${tp}.name`, 'name must not be empty');
  const params = t.parameters ?? { type: 'object', properties: {} };
  if (!isObject(params)) failField(`${tp}.parameters`, 'parameters must be an object');
  const fn: ChatTool['function'] = { name, parameters: params };
  if (typeof t.description === 'string') fn.description = t.description;
  if (typeof t.strict === 'boolean') fn.strict = t.strict;
  for (const key of ['output_schema', 'defer_loading', 'allowed_callers']) {
    if (t[key] !== undefined && t[key] !== null) w.add(`tools[].${key} dropped: no common-format equivalent`, `${tp}.${key}`);
  }
  return { type: 'function', function: fn };
}

/** How a dropped tool is named in warnings, errors and `x-gw-dropped-tools`. */
function label(t: Obj, namespace?: string): string {
  const type = typeof t.type === 'string' ? t.type : 'unknown';
  const name = typeof t.name === 'string' ? t.name : typeof t.server_label === 'string' ? t.server_label : undefined;
  if (name === undefined) return type;
  return `${type}:${namespace ? `${namespace}.` : ''}${name}`;
}

/**
 * Translates `tool_choice` onto `req` (which already holds the mapped tools);
 * `allowed_tools` narrows `req.tools`. With no tools left it is dropped with a warning.
 * @throws GatewayError 400 `tool_choice` when it forces a dropped tool (the answer would
 *   silently not be what the client forced) or names no known function.
 */
export function mapToolChoice(tc: unknown, mapped: MappedTools, req: ChatRequest, w: Warnings): void {
  if (tc === undefined || tc === null) return;
  const haveTools = mapped.tools.length > 0;
  let choice: ToolChoice;
  if (typeof tc === 'string') {
    if (tc !== 'none' && tc !== 'auto' && tc !== 'required') failField('tool_choice', 'tool_choice must be "none", "auto", "required" or an object');
    if (tc === 'required' && !haveTools && mapped.dropped.length > 0) {
      failField(
        'tool_choice',
        `"required" forces a call, but every tool was dropped (${mapped.dropped.length}): built-in tools cannot run on this model's provider`,
        mapped.dropped.join(', '),
      );
    }
    choice = tc;
  } else {
    if (!isObject(tc) || typeof tc.type !== 'string') failField('tool_choice', 'tool_choice must be a string or an object with a type');
    switch (tc.type) {
      case 'function': {
        const name = stringField(tc, 'name', 'tool_choice');
        choice = { type: 'function', function: { name: forcedFunction(name, tc.namespace, mapped) } };
        break;
      }
      case 'allowed_tools':
        choice = allowedTools(tc, mapped, req);
        break;
      default: {
        const forced = label(tc);
        failField('tool_choice', "forces a built-in tool that this model's provider cannot run (it was dropped)", quoted(forced));
      }
    }
  }
  if (!haveTools || (req.tools?.length ?? 0) === 0) {
    w.add('tool_choice dropped: no tools left to choose from', 'tool_choice');
    return;
  }
  req.tool_choice = choice;
}

function forcedFunction(name: string, namespace: unknown, mapped: MappedTools): string {
  const flat = mapped.names.flatten(typeof namespace === 'string' ? namespace : undefined, name);
  if (mapped.tools.some((t) => t.function.name === flat)) return flat;
  const dropped = mapped.dropped.find((d) => d.endsWith(`:${name}`) || d.endsWith(`.${name}`));
  if (dropped !== undefined) failField('tool_choice', "forces a tool that this model's provider cannot run (it was dropped)", quoted(dropped));
  failField('tool_choice.name', 'names no function tool', quoted(name));
}

/** Namespace → the flat names of its functions, built once per request (not once per allowed namespace). */
function namespaces(mapped: MappedTools): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const tool of mapped.tools) {
    const ns = mapped.names.restore(tool.function.name).namespace;
    if (ns === undefined) continue;
    const list = out.get(ns);
    if (list === undefined) out.set(ns, [tool.function.name]);
    else list.push(tool.function.name);
  }
  return out;
}

function allowedTools(tc: Obj, mapped: MappedTools, req: ChatRequest): ToolChoice {
  if (tc.mode !== 'auto' && tc.mode !== 'required') failField('tool_choice.mode', 'mode must be "auto" or "required"');
  if (!Array.isArray(tc.tools)) failField('tool_choice.tools', 'tools must be an array');
  const allowed = new Set<string>();
  const forcedDropped: string[] = [];
  let byNamespace: Map<string, string[]> | undefined;
  tc.tools.forEach((t, i) => {
    if (!isObject(t)) failField(`tool_choice.tools[${i}]`, 'tool must be an object');
    if (t.type === 'function' && typeof t.name === 'string')
      allowed.add(mapped.names.flatten(typeof t.namespace === 'string' ? t.namespace : undefined, t.name));
    else if (t.type === 'namespace' && typeof t.name === 'string') {
      byNamespace ??= namespaces(mapped);
      for (const flat of byNamespace.get(t.name) ?? []) allowed.add(flat);
      // taken once: a namespace listed again adds nothing new
      byNamespace.delete(t.name);
    } else forcedDropped.push(label(t));
  });
  req.tools = (req.tools ?? []).filter((t) => allowed.has(t.function.name));
  if (req.tools.length === 0 && tc.mode === 'required' && forcedDropped.length > 0) {
    failField('tool_choice', `"required" allows only tools this model's provider cannot run (${forcedDropped.length}, dropped)`, forcedDropped.join(', '));
  }
  if (req.tools.length === 0) delete req.tools;
  return tc.mode;
}
