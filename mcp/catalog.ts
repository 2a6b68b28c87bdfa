/**
 * One catalog over every server that is up (docs/mcp.md "Names"): tools and prompts as
 * `<server>__<name>` (names.ts), resources under their own URIs, resource templates matched
 * by their URI templates. Built again, whole, whenever a server's state or lists change (a
 * few hundred entries: cheap), and read by every list and call in between without locks.
 *
 * A name two entries would share is refused when the catalog is built: the first entry
 * (config order, then the server's own order) keeps it, the other is left out and its server
 * shows the refusal in its `warnings`. So is a resource URI two servers list.
 *
 * Access: every entry has a full name (a resource's is `<server>__<resource name>`), and the
 * key's `mcp_tools` patterns decide over that one name for lists, calls, prompts and
 * resources alike (`KeyInfo.mcpAllows`). What a key may not use is simply not there for it.
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/server';
import { UriTemplate } from '@modelcontextprotocol/server';
import { compileModelPatterns } from '../lib/model-glob.ts';
import { fullName } from './names.ts';
import type { UpstreamServer } from './upstream/connection.ts';

export interface ToolEntry {
  readonly server: string;
  /** The server's own name for it. */
  readonly own: string;
  /** `<server>__<own>` (or its hashed form). */
  readonly full: string;
  /** USD per call: `tool_costs[own]`, else `cost_per_call`. */
  readonly price: number;
  /** As `/mcp` lists it (name = full). */
  readonly namespaced: Tool;
  /** As `/mcp/<server>` lists it (the upstream's own). */
  readonly plain: Tool;
}

export interface PromptEntry {
  readonly server: string;
  readonly own: string;
  readonly full: string;
  readonly namespaced: Prompt;
  readonly plain: Prompt;
}

export interface ResourceEntry {
  readonly server: string;
  /** `<server>__<resource name>`: what access decides on. */
  readonly full: string;
  readonly resource: Resource;
}

export interface TemplateEntry {
  readonly server: string;
  readonly full: string;
  readonly template: ResourceTemplate;
  readonly matcher: UriTemplate;
}

/** One server's part of the catalog, for `/mcp/<server>` and the listings. */
export interface ServerPart {
  readonly tools: Map<string, ToolEntry>;
  readonly prompts: Map<string, PromptEntry>;
  /** Entries refused while building (a taken name or URI). */
  readonly warnings: string[];
}

/** What decides whether an entry is visible: a key's predicate over full names. */
export type Allows = (fullName: string) => boolean;

export class Catalog {
  /** By full name, config order. */
  readonly tools = new Map<string, ToolEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  /** By URI. */
  readonly resources = new Map<string, ResourceEntry>();
  readonly templates: TemplateEntry[] = [];
  /** By server name: only servers that are up. */
  readonly servers = new Map<string, ServerPart>();

  /** The catalog of `servers` (config order); servers that are not up are left out. `max`: the longest full name. */
  constructor(servers: Iterable<UpstreamServer>, max: number) {
    for (const s of servers) {
      if (s.state !== 'up') continue;
      const part: ServerPart = { tools: new Map(), prompts: new Map(), warnings: [] };
      this.servers.set(s.name, part);
      const shows = toolFilter(s.config.include_tools, s.config.exclude_tools);
      for (const tool of s.lists.tools) {
        if (!shows(tool.name)) continue;
        const full = fullName(s.name, tool.name, max);
        const taken = this.tools.get(full) ?? part.tools.get(tool.name);
        if (taken) {
          part.warnings.push(`tool '${tool.name}' left out: its name '${full}' is taken by '${taken.own}' of server '${taken.server}'`);
          continue;
        }
        const price = s.config.tool_costs && Object.hasOwn(s.config.tool_costs, tool.name) ? s.config.tool_costs[tool.name]! : s.config.cost_per_call;
        const e: ToolEntry = { server: s.name, own: tool.name, full, price, namespaced: { ...tool, name: full }, plain: tool };
        this.tools.set(full, e);
        part.tools.set(tool.name, e);
      }
      for (const prompt of s.lists.prompts) {
        const full = fullName(s.name, prompt.name, max);
        const taken = this.prompts.get(full) ?? part.prompts.get(prompt.name);
        if (taken) {
          part.warnings.push(`prompt '${prompt.name}' left out: its name '${full}' is taken by '${taken.own}' of server '${taken.server}'`);
          continue;
        }
        const e: PromptEntry = { server: s.name, own: prompt.name, full, namespaced: { ...prompt, name: full }, plain: prompt };
        this.prompts.set(full, e);
        part.prompts.set(prompt.name, e);
      }
      for (const resource of s.lists.resources) {
        const taken = this.resources.get(resource.uri);
        if (taken) {
          part.warnings.push(`resource '${resource.uri}' left out: server '${taken.server}' lists the same URI`);
          continue;
        }
        this.resources.set(resource.uri, { server: s.name, full: fullName(s.name, resource.name, max), resource });
      }
      for (const template of s.lists.templates) {
        let matcher: UriTemplate;
        try {
          matcher = new UriTemplate(template.uriTemplate);
        } catch {
          part.warnings.push(`resource template '${template.uriTemplate}' left out: not a URI template`);
          continue;
        }
        this.templates.push({ server: s.name, full: fullName(s.name, template.name, max), template, matcher });
      }
    }
  }

  /** The tool a client calls by `name`: a full name, or on `/mcp/<scope>` the server's own name. */
  tool(name: string, scope: string | undefined): ToolEntry | undefined {
    return scope === undefined ? this.tools.get(name) : this.servers.get(scope)?.tools.get(name);
  }

  prompt(name: string, scope: string | undefined): PromptEntry | undefined {
    return scope === undefined ? this.prompts.get(name) : this.servers.get(scope)?.prompts.get(name);
  }

  /** The server that serves `uri`: a listed resource, else the first template that matches it. */
  resource(uri: string, scope: string | undefined): { server: string; full: string } | undefined {
    const listed = this.resources.get(uri);
    if (listed) return scope === undefined || listed.server === scope ? listed : undefined;
    for (const t of this.templates) if ((scope === undefined || t.server === scope) && t.matcher.match(uri) !== null) return t;
    return undefined;
  }

  /** The tools `allows` lets through, as the client lists them (own names on `/mcp/<scope>`). */
  listTools(allows: Allows, scope: string | undefined): Tool[] {
    const out: Tool[] = [];
    for (const e of scope === undefined ? this.tools.values() : (this.servers.get(scope)?.tools.values() ?? []))
      if (allows(e.full)) out.push(scope === undefined ? e.namespaced : e.plain);
    return out;
  }

  listPrompts(allows: Allows, scope: string | undefined): Prompt[] {
    const out: Prompt[] = [];
    for (const e of scope === undefined ? this.prompts.values() : (this.servers.get(scope)?.prompts.values() ?? []))
      if (allows(e.full)) out.push(scope === undefined ? e.namespaced : e.plain);
    return out;
  }

  listResources(allows: Allows, scope: string | undefined): Resource[] {
    const out: Resource[] = [];
    for (const e of this.resources.values()) if ((scope === undefined || e.server === scope) && allows(e.full)) out.push(e.resource);
    return out;
  }

  listTemplates(allows: Allows, scope: string | undefined): ResourceTemplate[] {
    const out: ResourceTemplate[] = [];
    for (const e of this.templates) if ((scope === undefined || e.server === scope) && allows(e.full)) out.push(e.template);
    return out;
  }
}

/** Whether a server's tool is in the catalog: `include_tools` (default every tool), then `exclude_tools`. */
function toolFilter(include: readonly string[] | undefined, exclude: readonly string[] | undefined): (name: string) => boolean {
  const inc = include === undefined ? undefined : compileModelPatterns(include);
  const exc = exclude === undefined ? undefined : compileModelPatterns(exclude);
  return (name) => (inc === undefined || inc(name)) && (exc === undefined || !exc(name));
}
